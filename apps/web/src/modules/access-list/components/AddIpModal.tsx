import { createIpRequestSchema } from '@brokerage/shared';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { isIpOrCidr } from '../../../lib/ip';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useAddIp } from '../api/ipWhitelist';

interface AddIpValues {
  ip_address: string;
  description: string;
}

function AddIpForm({ yourIp, firstEntry, onClose }: { yourIp: string; firstEntry: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const add = useAddIp();
  const schemaErrors = schemaValidator<AddIpValues>(createIpRequestSchema, t);
  const form = useForm<AddIpValues>({
    mode: 'controlled',
    initialValues: { ip_address: '', description: '' },
    validate: (values) => {
      const errors = schemaErrors(values);
      if (!errors.ip_address && !isIpOrCidr(values.ip_address)) errors.ip_address = t('validation.invalid_ip');
      return errors;
    },
  });

  const submit = form.onSubmit((values) => {
    const body = createIpRequestSchema.parse(values);
    add.mutate(body, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('access.addModal.success', { ip: body.ip_address }) });
        onClose();
      },
    });
  });

  return (
    <form onSubmit={submit} noValidate data-testid="add-ip-form">
      <Stack>
        <ErrorBox message={add.error ? errorText(add.error, t('access.addModal.error')) : null} />
        {firstEntry ? (
          <Text size="sm" c="orange">
            {t('access.addModal.firstEntryHint')}
          </Text>
        ) : null}
        <TextInput
          label={t('access.addModal.ip')}
          description={t('access.addModal.ipHint')}
          required
          data-autofocus
          autoComplete="off"
          spellCheck={false}
          {...form.getInputProps('ip_address')}
          rightSectionWidth={yourIp ? 130 : undefined}
          rightSection={
            yourIp ? (
              <Button size="compact-xs" variant="light" onClick={() => form.setFieldValue('ip_address', yourIp)}>
                {t('access.addModal.useMyIp')}
              </Button>
            ) : null
          }
        />
        <TextInput label={t('access.addModal.description')} {...form.getInputProps('description')} />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={add.isPending}>
            {t('access.addModal.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.14 add modal: IP address * (IPv4, IPv6 or CIDR) and Description. */
export function AddIpModal({
  opened,
  formKey,
  yourIp,
  firstEntry,
  onClose,
}: {
  opened: boolean;
  /** A new key for each opening: the form starts empty every time. */
  formKey: number;
  yourIp: string;
  firstEntry: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onClose} title={t('access.addModal.title')} centered>
      <AddIpForm key={formKey} yourIp={yourIp} firstEntry={firstEntry} onClose={onClose} />
    </Modal>
  );
}
