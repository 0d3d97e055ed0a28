import { AffiliatesList } from '../../modules/affiliates/components/AffiliatesList';

export default function AffiliatesPage() {
  return <AffiliatesList />;
}
