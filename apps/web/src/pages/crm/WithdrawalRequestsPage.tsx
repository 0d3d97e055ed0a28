import { WithdrawalRequests } from '../../modules/withdrawal-requests/components/WithdrawalRequests';

export default function WithdrawalRequestsPage() {
  return <WithdrawalRequests />;
}
