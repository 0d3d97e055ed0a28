import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import { useId, useState, type KeyboardEvent, type ReactNode } from 'react';

/** What the composer says, in the caller's namespace (the client's platform strings or the CRM's). */
export interface MessageComposerTexts {
  label: string;
  placeholder: string;
  /** Under the box: how to send (Ctrl+Enter) and make a new line (Enter). */
  keyboardHint: string;
  send: string;
  blank: string;
  tooLong: string;
  /** '12 / 4000'. */
  counter: (length: number) => string;
}

/**
 * The one message composer of both conversations (issue 22 §6: the client's 'Поддержка' and the staff's reply on the
 * client card): Enter makes a new line, Ctrl+Enter (⌘+Enter) sends; the text is trimmed and 1–`max` characters, with a
 * live counter (orange near the limit, red past it). `onSend` answers whether the message went: the box is emptied
 * then, unless something new was typed meanwhile.
 */
export function MessageComposer({
  max,
  texts,
  pending,
  onSend,
  error,
  testIdPrefix,
}: {
  max: number;
  texts: MessageComposerTexts;
  pending: boolean;
  onSend: (content: string) => Promise<boolean>;
  /** The last failure, said under the box. */
  error?: ReactNode;
  /** '<prefix>-text', '-counter', '-send'. */
  testIdPrefix: string;
}) {
  const hintId = useId();
  const [text, setText] = useState('');
  const [blank, setBlank] = useState(false);
  const length = text.trim().length;
  const over = length > max;

  const submit = () => {
    const content = text.trim();
    if (!content) {
      setBlank(true);
      return;
    }
    if (content.length > max || pending) return;
    void onSend(content).then((sent) => {
      // Cleared only if it still holds what was sent: what was typed since is kept.
      if (sent) setText((current) => (current.trim() === content ? '' : current));
    });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Stack gap={6}>
        <Textarea
          label={texts.label}
          placeholder={texts.placeholder}
          autosize
          minRows={2}
          maxRows={8}
          value={text}
          onChange={(event) => {
            setText(event.currentTarget.value);
            if (blank) setBlank(false);
          }}
          onKeyDown={onKeyDown}
          error={blank ? texts.blank : over ? texts.tooLong : null}
          aria-describedby={hintId}
          data-testid={`${testIdPrefix}-text`}
        />
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="xs" c="dimmed" id={hintId}>
            {texts.keyboardHint}
          </Text>
          <Group gap="sm" wrap="nowrap">
            <Text
              size="xs"
              c={over ? 'red' : length > max * 0.9 ? 'orange' : 'dimmed'}
              aria-live="polite"
              data-testid={`${testIdPrefix}-counter`}
            >
              {texts.counter(length)}
            </Text>
            <Button
              type="submit"
              leftSection={<IconSend size={16} />}
              loading={pending}
              disabled={over}
              data-testid={`${testIdPrefix}-send`}
            >
              {texts.send}
            </Button>
          </Group>
        </Group>
        {error}
      </Stack>
    </form>
  );
}
