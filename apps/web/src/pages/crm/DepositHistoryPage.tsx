import { DepositHistory } from '../../modules/deposit-history/components/DepositHistory';

export default function DepositHistoryPage() {
  return <DepositHistory />;
}
