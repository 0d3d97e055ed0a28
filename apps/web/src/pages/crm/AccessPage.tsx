import { AccessManagement } from '../../modules/access-list/components/AccessManagement';

export default function AccessPage() {
  return <AccessManagement />;
}
