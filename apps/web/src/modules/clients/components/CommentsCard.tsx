import { Badge, Button, Checkbox, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconPin, IconPinnedOff } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { formatDateTime } from '../../../lib/format';
import { ErrorBox } from '../../ui/ErrorBox';
import { useAddComment, useClientComments, usePinComment } from '../api/client-card';

/** §2.6 'Comments (N)': the form (text, 'Pin comment', Send) and the list, pinned first and highlighted. */
export function CommentsCard({ clientId, timeZone }: { clientId: number; timeZone: string }) {
  const { t } = useTranslation();
  const comments = useClientComments(clientId);
  const add = useAddComment(clientId);
  const pin = usePinComment(clientId);
  const [text, setText] = useState('');
  const [pinned, setPinned] = useState(false);
  const items = [...(comments.data?.items ?? [])].sort((a, b) => Number(b.is_pinned) - Number(a.is_pinned));

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    const sent = text;
    add.mutate(
      { text, is_pinned: pinned },
      {
        onSuccess: () => {
          // Cleared only if it still holds what was sent: what the user has typed since is kept.
          setText((current) => (current === sent ? '' : current));
          setPinned(false);
        },
      },
    );
  };

  const failure = add.error ?? pin.error ?? comments.error;
  return (
    <Paper withBorder radius="md" p="md" data-testid="client-comments">
      <Title order={4} mb="md">
        {t('clients.comments.title', { count: comments.data?.total ?? 0 })}
      </Title>
      <form onSubmit={submit} data-testid="comment-form">
        <Stack gap="xs">
          <ErrorBox message={failure ? errorText(failure, t('clients.comments.error')) : null} />
          <Textarea
            aria-label={t('clients.comments.placeholder')}
            placeholder={t('clients.comments.placeholder')}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
            autosize
            minRows={2}
            maxRows={8}
            data-testid="comment-text"
          />
          <Group justify="space-between">
            <Checkbox
              label={t('clients.comments.pin')}
              checked={pinned}
              onChange={(event) => setPinned(event.currentTarget.checked)}
              data-testid="comment-pin-new"
            />
            <Button type="submit" disabled={!text.trim()} loading={add.isPending} data-testid="comment-send">
              {t('clients.comments.send')}
            </Button>
          </Group>
        </Stack>
      </form>
      <Stack gap="xs" mt="md">
        {!comments.isPending && items.length === 0 ? (
          <Text c="dimmed" size="sm" ta="center">
            {t('clients.comments.empty')}
          </Text>
        ) : null}
        {items.map((comment) => (
          <Paper
            key={comment.id}
            withBorder
            p="sm"
            radius="sm"
            bg={comment.is_pinned ? 'var(--mantine-color-yellow-light)' : undefined}
            data-testid="comment"
            data-pinned={comment.is_pinned}
          >
            <Group justify="space-between" wrap="nowrap" gap="xs" align="flex-start">
              <Group gap="xs" wrap="wrap" miw={0}>
                <Text size="sm" fw={600}>
                  {comment.user_name || t('common.dash')}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(comment.created_at, timeZone)}
                </Text>
                {comment.is_pinned ? (
                  <Badge color="yellow" variant="light" size="sm">
                    {t('clients.comments.pinned')}
                  </Badge>
                ) : null}
              </Group>
              <Button
                size="compact-xs"
                variant="subtle"
                leftSection={comment.is_pinned ? <IconPinnedOff size={14} /> : <IconPin size={14} />}
                // Never squeezed: the label stays whole ('Закрепить', not 'Закрепит').
                style={{ flexShrink: 0 }}
                onClick={() => pin.mutate({ id: comment.id, isPinned: !comment.is_pinned })}
                data-testid="comment-toggle-pin"
              >
                {comment.is_pinned ? t('clients.comments.unpinAction') : t('clients.comments.pinAction')}
              </Button>
            </Group>
            <Text size="sm" mt={4} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {comment.text}
            </Text>
          </Paper>
        ))}
      </Stack>
    </Paper>
  );
}
