import { z } from 'zod';

/** The demo logins, shown on the login screen only when the server runs with its demo data set (back-office.md §2.3). */
export const demoAccountsResponseSchema = z.object({
  demo: z.boolean(),
  accounts: z.array(z.object({ email: z.string(), password: z.string(), role: z.string() })),
});
export type DemoAccountsResponse = z.infer<typeof demoAccountsResponseSchema>;
