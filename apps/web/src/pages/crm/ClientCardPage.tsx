import { ClientCard } from '../../modules/clients/components/ClientCard';

export default function ClientCardPage() {
  return <ClientCard />;
}
