import { AFFILIATE_STATUSES, affiliateUpdateSchema, type Affiliate, type AffiliateStatus } from '@brokerage/shared';
import { Alert, Button, Group, Modal, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconKey, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { CopyableCode } from '../../ui/CopyableCode';
import { ErrorBox } from '../../ui/ErrorBox';
import { useRotateSecret, useUpdateAffiliate } from '../api/affiliates';

interface EditValues {
  name: string;
  contact_person: string;
  contact_email: string;
  webhook_url: string;
  description: string;
  status: AffiliateStatus;
}

/** The signing secret, shown this once after the save or the rotation that made it (D17), with a copy button. */
function SecretPanel({ secret, onDone }: { secret: string; onDone: () => void }) {
  const { t } = useTranslation('affiliates');
  return (
    <Stack data-testid="affiliate-secret-panel">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title={t('edit.secretTitle')}>
        {t('edit.secretWarning')}
      </Alert>
      <Text size="sm" fw={500}>
        {t('edit.secretLabel')}
      </Text>
      <CopyableCode
        value={secret}
        copyLabel={t('edit.copySecret')}
        copiedLabel={t('integration.copied')}
        onCopied={() => notifications.show({ color: 'green', message: t('edit.secretCopied') })}
        testId="affiliate-secret"
      />
      <Group justify="flex-end">
        <Button onClick={onDone} data-testid="affiliate-secret-done">
          {t('edit.done')}
        </Button>
      </Group>
    </Stack>
  );
}

function EditAffiliateForm({ affiliate, onClose }: { affiliate: Affiliate; onClose: () => void }) {
  const { t } = useTranslation('affiliates');
  const { t: tr } = useTranslation();
  const update = useUpdateAffiliate();
  const rotate = useRotateSecret();
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const form = useForm<EditValues>({
    mode: 'controlled',
    initialValues: {
      name: affiliate.name,
      contact_person: affiliate.contact_person,
      contact_email: affiliate.contact_email,
      webhook_url: affiliate.webhook_url ?? '',
      description: affiliate.description,
      status: affiliate.status,
    },
    validate: schemaValidator<EditValues>(affiliateUpdateSchema, tr),
  });

  if (secret !== null) return <SecretPanel secret={secret} onDone={onClose} />;

  const submit = form.onSubmit((values) => {
    const body = affiliateUpdateSchema.parse(values);
    update.mutate(
      { id: affiliate.id, body },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: t('edit.success') });
          if (saved.signing_secret) setSecret(saved.signing_secret);
          else onClose();
        },
      },
    );
  });
  const runRotate = () =>
    rotate.mutate(affiliate.id, {
      onSuccess: (answer) => {
        setConfirmRotate(false);
        setSecret(answer.signing_secret);
      },
    });

  return (
    <form onSubmit={submit} noValidate data-testid="edit-affiliate-form">
      <Stack>
        <ErrorBox message={update.error ? errorText(update.error, t('edit.error')) : null} />
        <TextInput label={t('edit.name')} required data-autofocus {...form.getInputProps('name')} />
        <TextInput label={t('edit.contactPerson')} {...form.getInputProps('contact_person')} />
        <TextInput label={t('edit.email')} type="email" {...form.getInputProps('contact_email')} />
        <TextInput
          label={t('edit.webhookUrl')}
          type="url"
          placeholder="https://partner.example/postbacks"
          description={t('edit.webhookHint')}
          {...form.getInputProps('webhook_url')}
        />
        <Textarea
          label={t('edit.description')}
          autosize
          minRows={2}
          maxRows={6}
          {...form.getInputProps('description')}
        />
        <Select
          label={t('edit.status')}
          data={AFFILIATE_STATUSES.map((value) => ({ value, label: t(`statuses.${value}`) }))}
          allowDeselect={false}
          {...form.getInputProps('status')}
        />
        {affiliate.has_signing_secret && affiliate.webhook_url ? (
          <Stack gap="xs">
            <Group gap="xs" wrap="nowrap">
              <IconKey size={16} />
              <Text size="sm" c="dimmed">
                {t('edit.secretSet')}
              </Text>
            </Group>
            {confirmRotate ? (
              <Alert color="red" variant="light" data-testid="affiliate-rotate-confirm">
                <Stack gap="xs">
                  <Text size="sm">{t('edit.rotateConfirm')}</Text>
                  <ErrorBox message={rotate.error ? errorText(rotate.error, t('edit.rotateError')) : null} />
                  <Group gap="xs">
                    <Button size="xs" variant="default" onClick={() => setConfirmRotate(false)}>
                      {tr('common.cancel')}
                    </Button>
                    <Button
                      size="xs"
                      color="red"
                      loading={rotate.isPending}
                      onClick={runRotate}
                      data-testid="affiliate-rotate-submit"
                    >
                      {t('edit.rotateSubmit')}
                    </Button>
                  </Group>
                </Stack>
              </Alert>
            ) : (
              <Group>
                <Button
                  size="xs"
                  variant="light"
                  color="orange"
                  leftSection={<IconRefresh size={14} />}
                  onClick={() => setConfirmRotate(true)}
                  data-testid="affiliate-rotate"
                >
                  {t('edit.rotate')}
                </Button>
              </Group>
            )}
          </Stack>
        ) : null}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {tr('common.cancel')}
          </Button>
          <Button type="submit" loading={update.isPending} data-testid="affiliate-save">
            {t('edit.save')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.13 Edit: Name *, Contact person, Email, Webhook URL, Description (and the status); the secret once (D17). */
export function EditAffiliateModal({
  affiliate,
  opened,
  onClose,
  onExited,
}: {
  affiliate: Affiliate | null;
  opened: boolean;
  onClose: () => void;
  onExited: () => void;
}) {
  const { t } = useTranslation('affiliates');
  return (
    <Modal opened={opened} onClose={onClose} onExitTransitionEnd={onExited} title={t('edit.title')} centered size="lg">
      {affiliate ? <EditAffiliateForm key={affiliate.id} affiliate={affiliate} onClose={onClose} /> : null}
    </Modal>
  );
}
