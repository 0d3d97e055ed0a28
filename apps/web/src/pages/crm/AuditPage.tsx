import { AuditLog } from '../../modules/audit/components/AuditLog';

export default function AuditPage() {
  return <AuditLog />;
}
