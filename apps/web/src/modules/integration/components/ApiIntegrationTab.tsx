// Placeholder: built by the lead-supply work (issue 10).
export function ApiIntegrationTab() {
  return null;
}
