import { OutboxList } from '../../modules/mail-outbox/components/OutboxList';

export default function OutboxPage() {
  return <OutboxList />;
}
