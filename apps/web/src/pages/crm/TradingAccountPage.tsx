import { TradingAccountDetail } from '../../modules/trading-admin/components/TradingAccountDetail';

export default function TradingAccountPage() {
  return <TradingAccountDetail />;
}
