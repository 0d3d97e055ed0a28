import { TradingAccountsList } from '../../modules/trading-admin/components/TradingAccountsList';

export default function TradingAccountsPage() {
  return <TradingAccountsList />;
}
