import { Inbox } from '../../modules/inbox/components/Inbox';

export default function InboxPage() {
  return <Inbox />;
}
