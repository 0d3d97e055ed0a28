import { TradingPlatformManagement } from '../../modules/trading-platform/components/TradingPlatformManagement';

export default function TradingManagementPage() {
  return <TradingPlatformManagement />;
}
