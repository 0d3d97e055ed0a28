import type { Client } from '@brokerage/shared';
import { Button, Group, Modal, PasswordInput, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/api';
import { ErrorBox } from '../../ui/ErrorBox';
import { useChangeClientPassword, useRegisterClientUser } from '../api/client-card';

const MIN_PASSWORD = 6;

function RegisterForm({ client, onClose }: { client: Client; onClose: () => void }) {
  const { t } = useTranslation('notify');
  const register = useRegisterClientUser(client.id);
  const [name, setName] = useState(client.name);
  const [email, setEmail] = useState(client.email);
  const [phone, setPhone] = useState(client.phone);
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!name.trim() || !email.trim() || !password) {
      setProblem(t('card.register.required'));
      return;
    }
    if (password.length < MIN_PASSWORD) {
      setProblem(t('card.register.minPassword'));
      return;
    }
    setProblem(null);
    register.mutate(
      { name: name.trim(), email: email.trim(), phone: phone.trim(), password },
      {
        onSuccess: (result) => {
          notifications.show({
            color: 'green',
            autoClose: 10_000,
            message: result.outcome === 'created' ? t('card.register.success') : t('card.register.linked'),
          });
          // Issue 20 finding 1: a login made by staff waits for another finance approver's identity check.
          if (!result.identity_verified) {
            notifications.show({ color: 'orange', autoClose: 10_000, message: t('card.register.identityPending') });
          }
          onClose();
        },
        onError: (error) => {
          if (error instanceof ApiError && error.code === 'email_registered_unlinkable')
            setProblem(t('card.register.linkFailed'));
          else if (error instanceof ApiError && error.detail)
            setProblem(t('card.register.error', { detail: error.detail }));
          else setProblem(t('card.register.fallback'));
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate data-testid="register-user-form">
      <Stack>
        <ErrorBox message={problem} />
        <TextInput
          label={t('card.register.name')}
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          data-autofocus
          data-testid="register-name"
        />
        <TextInput
          label={t('card.register.email')}
          required
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          data-testid="register-email"
        />
        <TextInput
          label={t('card.register.phone')}
          type="tel"
          value={phone}
          onChange={(e) => setPhone(e.currentTarget.value)}
          data-testid="register-phone"
        />
        <PasswordInput
          label={t('card.register.password')}
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          autoComplete="new-password"
          data-testid="register-password"
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('calendar.cancel')}
          </Button>
          <Button type="submit" loading={register.isPending} data-testid="register-submit">
            {t('card.register.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6 'Register user': Name *, Email *, Phone, Password *, with the §8 outcomes. */
export function RegisterUserModal({
  client,
  opened,
  onClose,
}: {
  client: Client;
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('notify');
  return (
    <Modal opened={opened} onClose={onClose} title={t('card.register.title')} centered>
      {opened ? <RegisterForm client={client} onClose={onClose} /> : null}
    </Modal>
  );
}

function PasswordForm({ clientId, onClose }: { clientId: number; onClose: () => void }) {
  const { t } = useTranslation('notify');
  const change = useChangeClientPassword(clientId);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const short = password.length > 0 && password.length < MIN_PASSWORD;
  const mismatch = confirm.length > 0 && password !== confirm;
  const valid = password.length >= MIN_PASSWORD && confirm.length >= MIN_PASSWORD && password === confirm;
  const failure =
    change.error instanceof ApiError && change.error.detail
      ? t('card.password.error', { detail: change.error.detail })
      : change.error
        ? t('card.password.fallback')
        : null;

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    change.mutate(password, {
      onSuccess: () => {
        notifications.show({ color: 'green', message: t('card.password.success') });
        onClose();
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate data-testid="client-password-form">
      <Stack>
        <ErrorBox message={failure} />
        <PasswordInput
          label={t('card.password.new')}
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={short ? t('card.password.min') : undefined}
          autoComplete="new-password"
          data-autofocus
          data-testid="client-password-new"
        />
        <PasswordInput
          label={t('card.password.confirm')}
          required
          value={confirm}
          onChange={(e) => setConfirm(e.currentTarget.value)}
          error={mismatch ? t('card.password.mismatch') : undefined}
          autoComplete="new-password"
          data-testid="client-password-confirm"
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {t('calendar.cancel')}
          </Button>
          <Button type="submit" disabled={!valid} loading={change.isPending} data-testid="client-password-submit">
            {t('card.password.submit')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.6 'Change password': new and confirm, at least 6 characters each, matching (§5). */
export function ChangePasswordModal({
  clientId,
  opened,
  onClose,
}: {
  clientId: number;
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation('notify');
  return (
    <Modal opened={opened} onClose={onClose} title={t('card.password.title')} centered>
      {opened ? <PasswordForm clientId={clientId} onClose={onClose} /> : null}
    </Modal>
  );
}
