/** The demo model's fixed guid, so `npm run demo` can find it on any installation. */
export const DEMO_MODEL_GUID = '5e1ec7ed-0000-4000-8000-00000000de70';

/** A demo transaction: `index` makes every call different; some amounts activate the rules. */
export function demoTransaction(index: number): Record<string, unknown> {
  const amount = [120, 980, 5400, 75, 9600, 310, 2400, 12_500][index % 8] + (index % 97);
  return {
    transactionId: `demo-${Date.now().toString(36)}-${index}`,
    occurred: new Date().toISOString(),
    account: { id: `ACC-${1000 + (index % 25)}`, email: `holder${index % 25}@example.test` },
    amount,
    currency: ['EUR', 'USD', 'GBP'][index % 3],
    country: ['NL', 'DE', 'FR', 'US', 'GB'][index % 5],
  };
}

/**
 * The Invoke body of the OpenAPI document's example: a transaction the demo model reads (every field its
 * request XPaths name, in their types), so the example tried from the explorer against the demo model is a 200.
 */
export const DEMO_INVOKE_EXAMPLE = {
  transactionId: 'demo-example-0001',
  occurred: '2026-01-15T10:30:00.000Z',
  account: { id: 'ACC-1001', email: 'holder1@example.test' },
  amount: 125.5,
  currency: 'EUR',
  country: 'NL',
} as const;
