// Placeholder: built by the lead-supply work (issue 10).
export function AffiliatesList() {
  return null;
}
