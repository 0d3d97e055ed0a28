import { StaffManagement } from '../../modules/staff/components/StaffManagement';

export default function StaffPage() {
  return <StaffManagement />;
}
