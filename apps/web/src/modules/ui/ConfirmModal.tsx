import { Button, Group, Modal, Stack, Text, Textarea, type MantineColor } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

/** The dialog's reason field: its label, whether it must be filled, its length, and the test id of the textarea. */
export type ConfirmReason = { label: string; required?: boolean; maxLength?: number; testId?: string };

type ConfirmModalProps = {
  opened: boolean;
  title: string;
  text: string;
  /** A dimmed line under the text, e.g. who asked and why. */
  detail?: string | null;
  confirmLabel: string;
  /** The confirm button's colour: red (the default) for destructive actions, green for approvals. */
  color?: MantineColor;
  /** When set, a reason textarea; onConfirm receives its trimmed text ('' when left empty and not required). */
  reason?: ConfirmReason;
  loading?: boolean;
  onConfirm: (reason: string) => void;
  onClose: () => void;
  onExited?: () => void;
  testId?: string;
  confirmTestId?: string;
};

/**
 * A confirmation: the text, an optional reason, Cancel and the confirm button. The reason lives in the dialog's body,
 * which Mantine unmounts once closed, so each opening starts empty.
 */
export function ConfirmModal({ opened, title, onClose, onExited, ...body }: ConfirmModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={onExited} title={title} centered>
      <ConfirmBody onClose={onClose} {...body} />
    </Modal>
  );
}

function ConfirmBody({
  text,
  detail,
  confirmLabel,
  color = 'red',
  reason,
  loading,
  onConfirm,
  onClose,
  testId,
  confirmTestId,
}: Omit<ConfirmModalProps, 'opened' | 'title' | 'onExited'>) {
  const { t } = useTranslation();
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The dialog is portalled, but React still bubbles its submit to a form that renders it.
    event.stopPropagation();
    if (reason?.required && !value.trim()) {
      setError(t('validation.required'));
      return;
    }
    onConfirm(value.trim());
  };
  // A required reason takes the focus; otherwise the confirm button does.
  const focusReason = reason?.required === true;
  return (
    <form onSubmit={submit} noValidate>
      <Stack data-testid={testId}>
        <Text>{text}</Text>
        {detail ? (
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {detail}
          </Text>
        ) : null}
        {reason ? (
          <Textarea
            label={reason.label}
            required={reason.required}
            value={value}
            maxLength={reason.maxLength ?? 500}
            autosize
            minRows={2}
            error={error}
            data-autofocus={focusReason || undefined}
            onChange={(event) => {
              setValue(event.currentTarget.value);
              setError(null);
            }}
            data-testid={reason.testId}
          />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button
            type="submit"
            color={color}
            loading={loading}
            data-autofocus={focusReason ? undefined : true}
            data-testid={confirmTestId}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
