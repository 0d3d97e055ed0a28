import { CLIENT_STATUSES, clientCreateSchema, type ClientCreate } from '@brokerage/shared';
import { Autocomplete, Button, Group, Modal, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../../lib/api';
import { schemaValidator } from '../../../lib/validation';
import { ErrorBox } from '../../ui/ErrorBox';
import { useCreateClient } from '../api/clients';

/** Countries offered by the Country field; any other may be typed (§2.5 'pick from a list or type'). */
const COUNTRIES = [
  'Украина',
  'Россия',
  'Казахстан',
  'Беларусь',
  'Узбекистан',
  'Азербайджан',
  'Грузия',
  'Молдова',
  'Армения',
  'Кыргызстан',
  'Польша',
  'Германия',
  'Латвия',
  'Литва',
  'Эстония',
  'Израиль',
  'Турция',
  'США',
];

interface AddClientValues {
  name: string;
  email: string;
  phone: string;
  country: string;
  campaign: string;
  status: string;
}

const EMPTY: AddClientValues = { name: '', email: '', phone: '', country: '', campaign: '', status: 'new' };

/** The usual countries, then those of the caller's clients not among them (case-insensitive). */
function countryList(known: readonly string[]): string[] {
  const seen = new Set(COUNTRIES.map((c) => c.toLowerCase()));
  return [...COUNTRIES, ...known.filter((c) => !seen.has(c.toLowerCase()))];
}

function AddClientForm({
  countries,
  campaigns,
  onClose,
}: {
  countries: readonly string[];
  campaigns: readonly string[];
  onClose: () => void;
}) {
  const { t } = useTranslation('clientBase');
  const { t: tr } = useTranslation();
  const create = useCreateClient();
  const form = useForm<AddClientValues>({
    mode: 'controlled',
    initialValues: EMPTY,
    validate: schemaValidator<AddClientValues>(clientCreateSchema, tr),
  });

  const submit = form.onSubmit((values) => {
    const body: ClientCreate = clientCreateSchema.parse(values);
    create.mutate(body, {
      onSuccess: (client) => {
        notifications.show({ color: 'green', message: t('add.created', { name: client.name }) });
        onClose();
      },
    });
  });

  return (
    <form onSubmit={submit} noValidate data-testid="add-client-form">
      <Stack>
        <ErrorBox message={create.error ? errorText(create.error, t('add.error')) : null} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={t('add.name')}
            required
            data-autofocus
            maxLength={200}
            data-testid="add-client-name"
            {...form.getInputProps('name')}
          />
          <TextInput
            label={t('add.email')}
            type="email"
            required
            maxLength={254}
            data-testid="add-client-email"
            {...form.getInputProps('email')}
          />
          <TextInput
            label={t('add.phone')}
            type="tel"
            required
            maxLength={40}
            data-testid="add-client-phone"
            {...form.getInputProps('phone')}
          />
          <Autocomplete
            label={t('add.country')}
            placeholder={t('add.countryPlaceholder')}
            required
            data={countryList(countries)}
            maxLength={80}
            data-testid="add-client-country"
            {...form.getInputProps('country')}
          />
          <Autocomplete
            label={t('add.campaign')}
            placeholder={t('add.campaignPlaceholder')}
            data={[...campaigns]}
            maxLength={200}
            data-testid="add-client-campaign"
            {...form.getInputProps('campaign')}
          />
          <Select
            label={t('add.status')}
            data={CLIENT_STATUSES.map((value) => ({ value, label: tr(`clients.statuses.${value}`) }))}
            allowDeselect={false}
            data-testid="add-client-status"
            {...form.getInputProps('status')}
          />
        </SimpleGrid>
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            {tr('common.cancel')}
          </Button>
          <Button type="submit" loading={create.isPending} data-testid="add-client-submit">
            {t('add.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** §2.5 'Add client': name, e-mail, phone and country required (§5), campaign optional, status new by default. */
export function AddClientModal({
  opened,
  countries,
  campaigns,
  onClose,
}: {
  opened: boolean;
  /** Countries of the caller's clients (GET /api/clients/filter-options), offered after the usual ones. */
  countries: readonly string[];
  /** Campaign names of the caller's clients (GET /api/clients/filter-options); any other may be typed. */
  campaigns: readonly string[];
  onClose: () => void;
}) {
  const { t } = useTranslation('clientBase');
  return (
    <Modal opened={opened} onClose={onClose} title={t('add.title')} size="lg" centered>
      {opened ? <AddClientForm countries={countries} campaigns={campaigns} onClose={onClose} /> : null}
    </Modal>
  );
}
