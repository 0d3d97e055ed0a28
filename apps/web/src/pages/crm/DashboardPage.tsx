import { DashboardOverview } from '../../modules/dashboard/components/DashboardOverview';

export default function DashboardPage() {
  return <DashboardOverview />;
}
