import type { Harness } from './gateway-harness.ts';

/** The Origin the harness's gateway counts as its own (its public URL). */
export const DASHBOARD_ORIGIN = 'http://localhost:8787';

/** Signs in to the dashboard with the admin token; the session cookie as a `Cookie` header's pair. */
export async function signInToDashboard(gateway: Harness, adminToken: string): Promise<string> {
  const reply = await gateway.gateway.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: DASHBOARD_ORIGIN },
    payload: `token=${encodeURIComponent(adminToken)}`,
  });
  if (reply.statusCode !== 303) throw new Error(`sign-in answered ${reply.statusCode}: ${reply.body}`);
  return String(reply.headers['set-cookie']).split(';')[0] as string;
}
