import { ClientsList } from '../../modules/clients/components/ClientsList';

export default function ClientsPage() {
  return <ClientsList />;
}
