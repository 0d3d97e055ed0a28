import { Alert, Loader, type MantineSpacing } from '@mantine/core';
import { useLiveStatus } from '../../lib/ws';

/** Issue 21 §7: whether the live socket was up, was lost and has not caught up again (what is shown may be stale). */
export function useLiveStale(): boolean {
  return useLiveStatus() === 'reconnecting';
}

/**
 * Says that the screen's live data may be out of date while the socket reconnects (lib/ws.ts: until the server has
 * replayed what was missed). The texts come from the screen, in its own namespace.
 */
export function ReconnectingBanner({ title, text, mb }: { title: string; text: string; mb?: MantineSpacing }) {
  if (!useLiveStale()) return null;
  return (
    <Alert
      mb={mb}
      color="yellow"
      icon={<Loader size={14} color="yellow" />}
      title={title}
      role="status"
      data-testid="live-reconnecting"
    >
      {text}
    </Alert>
  );
}
