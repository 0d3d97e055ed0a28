import {
  DEPOSIT_METHOD_DESCRIPTION_MAX,
  DEPOSIT_METHOD_DETAILS_MAX,
  DEPOSIT_METHOD_TITLE_MAX,
  updateDepositMethodSchema,
  type StaffDepositMethod,
} from '@brokerage/shared';
import { Button, Group, Modal, Stack, Switch, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useUpdateDepositMethod } from '../api/trading-platform';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';

interface EditValues {
  title: string;
  description: string;
  details: string;
  enabled: boolean;
}

function EditForm({ method, onClose }: { method: StaffDepositMethod; onClose: () => void }) {
  const { t } = useTranslation();
  const update = useUpdateDepositMethod();
  const form = useForm<EditValues>({
    mode: 'controlled',
    initialValues: {
      title: method.title,
      description: method.description,
      details: method.details,
      enabled: method.enabled,
    },
    validate: schemaValidator<EditValues>(updateDepositMethodSchema, t),
  });

  const submit = form.onSubmit((values) => {
    const body = updateDepositMethodSchema.parse(values);
    update.mutate(
      { id: method.id, body },
      {
        onSuccess: () => {
          notifications.show({
            color: 'green',
            message: t('tradingPlatform.methods.saved', { title: body.title ?? values.title }),
          });
          onClose();
        },
        onError: (error) => console.error('Deposit method update failed', error),
      },
    );
  });

  return (
    <form onSubmit={submit} noValidate data-testid="deposit-method-form">
      <Stack>
        <ErrorBox message={update.isError ? t('tradingPlatform.methods.updateError') : null} />
        <TextInput
          label={t('tradingPlatform.editModal.name')}
          required
          maxLength={DEPOSIT_METHOD_TITLE_MAX}
          data-autofocus
          {...form.getInputProps('title')}
        />
        <TextInput
          label={t('tradingPlatform.editModal.description')}
          maxLength={DEPOSIT_METHOD_DESCRIPTION_MAX}
          {...form.getInputProps('description')}
        />
        <Textarea
          label={t('tradingPlatform.editModal.details')}
          placeholder={t('tradingPlatform.editModal.detailsPlaceholder')}
          rows={4}
          maxLength={DEPOSIT_METHOD_DETAILS_MAX}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          {...form.getInputProps('details')}
        />
        <Switch
          label={t('tradingPlatform.editModal.enabled')}
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={update.isPending}>
            {t('tradingPlatform.editModal.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.15 edit: Название, Описание, Реквизиты (4 rows), Отмена / Сохранить (superadmin only). */
export function EditDepositMethodModal({
  method,
  opened,
  onClose,
  onExited,
}: {
  method: StaffDepositMethod | null;
  opened: boolean;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onExited}
      title={t('tradingPlatform.editModal.title')}
      centered
      size="lg"
    >
      {method ? <EditForm key={method.id} method={method} onClose={onClose} /> : null}
    </Modal>
  );
}
