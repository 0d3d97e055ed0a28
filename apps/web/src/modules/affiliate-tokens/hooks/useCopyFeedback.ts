import { notifications } from '@mantine/notifications';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** §9: how long a copy button shows its check mark. */
const COPIED_MS = 2000;

/**
 * Copies a text to the clipboard; `copied` is true for 2 s afterwards. A browser that refuses (no permission, not a
 * secure page) gets the spec's 'Failed to copy token' notification.
 */
export function useCopyFeedback() {
  const { t } = useTranslation('affiliateTokens');
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      notifications.show({ color: 'red', message: t('copy.failed') });
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  };
  return { copied, copy };
}
