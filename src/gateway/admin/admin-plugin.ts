import type { FastifyInstance } from 'fastify';
import { type AdminGovernance, registerAdminApi } from './admin-api-routes.ts';
import { AdminCredentials } from './admin-credentials.ts';
import { type AdminReportDeps, AdminReports } from './admin-reports.ts';
import { AdminSessions } from './admin-sessions.ts';
import { registerDashboard } from './dashboard-routes.ts';
import { sessionCookie } from './session-cookie.ts';

/**
 * The dashboard and the admin API, registered only when ADMIN_TOKEN is set: without it both
 * answer the ordinary 404, as any unknown path does.
 */
export function registerAdmin(
  app: FastifyInstance,
  options: Omit<AdminReportDeps, 'teamOf' | 'teams'> & {
    adminToken: string | undefined;
    publicUrl: string;
    governance: AdminGovernance;
  },
): void {
  if (options.adminToken === undefined) return;
  const credentials = new AdminCredentials(options.adminToken);
  const access = {
    credentials,
    sessions: new AdminSessions(credentials, options.storage.sessionRevocations),
    cookie: sessionCookie(options.publicUrl),
  };
  registerAdminApi(app, {
    access,
    reports: new AdminReports({
      ...options,
      teamOf: (app) => options.governance.snapshot.teamOfApp(app),
      teams: () => options.governance.snapshot.teams(),
    }),
    now: options.now,
    governance: options.governance,
  });
  registerDashboard(app, { access, publicUrl: options.publicUrl, now: options.now });
}
