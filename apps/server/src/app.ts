import { fileURLToPath } from 'node:url';
import path from 'node:path';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { DbHandle } from './platform/db/index.js';
import type { AppDeps } from './platform/deps.js';
import { WhitelistCache } from './platform/access/whitelist.js';
import { createBus, type EventBus } from './platform/bus/index.js';
import { registerLiveGateway } from './platform/ws/gateway.js';
import { registerGuard } from './platform/auth/guard.js';
import { SessionCache } from './platform/auth/session-cache.js';
import {
  frameworkErrorHandler,
  registerErrorHandler,
  registerInputChecks,
  registerJsonParser,
  registerNotFound,
} from './platform/http/error-handler.js';
import { loggerOptions, type LogStream } from './platform/http/logging.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { registerSecurityHeaders } from './platform/http/security.js';
import { registerRequestTimeouts } from './platform/http/timeouts.js';
import { registerWebApp } from './platform/http/static.js';
import { accessListRoutes } from './modules/access-list/routes.js';
import { auditRoutes } from './modules/audit/routes.js';
import { useAuditChainKey } from './platform/audit/chain-key.js';
import { AuditCheckpointWriter, checkpointFile } from './platform/audit/checkpoints.js';
import { clientsRoutes } from './modules/clients/routes.js';
import { authRoutes } from './modules/auth/routes.js';
import { dashboardRoutes } from './modules/dashboard/routes.js';
import { syncDashboardTimezone } from './modules/dashboard/service.js';
import { healthRoutes } from './modules/health/routes.js';
import { staffRoutes } from './modules/staff/routes.js';
import { priceRoutes } from './modules/prices/routes.js';
import { priceLogRoutes } from './modules/price-log/routes.js';
import { tradingAdminRoutes } from './modules/trading/admin-routes.js';
import { voidRequestRoutes } from './modules/trading/void-request-routes.js';
import { TradingEngine } from './modules/trading/engine.js';
import { tradingRoutes } from './modules/trading/routes.js';
import { liveStreamReader } from './modules/live/streams.js';
import { withdrawalRoutes } from './modules/withdrawals/routes.js';
import { manualCreditRoutes } from './modules/manual-credits/routes.js';
import { depositMethodRoutes } from './modules/deposit-methods/routes.js';
import { clientMessageRoutes } from './modules/client-messages/routes.js';
import { depositRoutes } from './modules/deposits/routes.js';
import { depositIntentRoutes } from './modules/deposit-intents/routes.js';
import { commentRoutes } from './modules/comments/routes.js';
import { reminderRoutes } from './modules/reminders/routes.js';
import { siteContentRoutes } from './modules/site-content/routes.js';
import { marketInfoRoutes } from './modules/market-info/routes.js';
import { exportRoutes } from './modules/exports/routes.js';
import { notificationRoutes } from './modules/notifications/routes.js';
import { NotificationWorker } from './modules/notifications/worker.js';
import { clientAccountRoutes } from './modules/client-account/routes.js';
import { affiliateRoutes } from './modules/affiliates/routes.js';
import { integrationRoutes } from './modules/integration/routes.js';
import { PostbackWorker } from './modules/postbacks/jobs.js';
import { vaultFromConfig } from './platform/crypto/vault.js';
import { affiliateTokenRoutes } from './modules/affiliate-tokens/routes.js';
import { externalApiRoutes } from './modules/external-api/routes.js';
import { importRoutes } from './modules/imports/routes.js';
import { statementRoutes } from './modules/statement/routes.js';
import { Mailer } from './modules/mail/mailer.js';
import { mailRoutes } from './modules/mail/routes.js';
import { MailWorker } from './modules/mail/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The price feed and settlement worker: created stopped; main.ts starts it, tests drive it. */
    engine: TradingEngine;
    /** Reminder notifications and the notification push (D12): started when the server listens; tests call tick(). */
    notificationWorker: NotificationWorker;
    /** Affiliate postbacks (D13, D17): created stopped; main.ts starts it (one per cluster), tests call tick(now). */
    postbackWorker: PostbackWorker;
    /** Mail delivery and the staff's daily digest (issue 22): created stopped; main.ts starts it, tests call tick(now). */
    mailWorker: MailWorker;
    /** The audit chain's checkpoints outside the database (issue 20 §7): main.ts starts it, tests call writeNow(). */
    auditCheckpoints: AuditCheckpointWriter;
  }
}

export const VERSION = '0.1.0';

const here = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_WEB_DIST = path.resolve(here, '../../web/dist');

export interface BuildAppOptions {
  config: Config;
  database: DbHandle;
  /** The event bus; by default LISTEN/NOTIFY on PostgreSQL with DATABASE_URL, in-process otherwise. */
  bus?: EventBus;
  /** Where the log lines go instead of stdout (tests read them there). */
  logStream?: LogStream;
}

/** The one place where every module is registered; main.ts and the tests both build the app here. */
export async function buildApp({
  config,
  database,
  bus: givenBus,
  logStream,
}: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.LOG_LEVEL, logStream),
    trustProxy: config.trustProxy,
    bodyLimit: 256 * 1024,
    // HEAD on every GET route (a load balancer's or a monitor's probe), under the GET's access (platform/auth/guard.ts).
    exposeHeadRoutes: true,
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const databaseUrl = database.kind === 'postgres' ? config.DATABASE_URL : undefined;
  const bus = givenBus ?? (await createBus({ db: database.db, url: databaseUrl, log: app.log }));
  // The key audit rows are stamped with when they commit (issue 20 §7; main.ts sets it before the first-start seed).
  const chainKey = useAuditChainKey(config);
  const deps: AppDeps = {
    db: database.db,
    config,
    whitelist: new WhitelistCache(database.db),
    sessionPolicy: {
      staffIdleSeconds: config.STAFF_IDLE_MINUTES * 60,
      clientIdleSeconds: config.CLIENT_SESSION_DAYS * 24 * 3600,
    },
    version: VERSION,
    bus,
    vault: vaultFromConfig(config),
    mail: new Mailer(config, app.log),
  };

  registerErrorHandler(app);
  registerRequestTimeouts(app, { requestMs: config.REQUEST_TIMEOUT_MS });
  registerJsonParser(app);
  registerInputChecks(app);
  registerSecurityHeaders(app);
  await app.register(cookie);
  await app.register(rateLimit, { global: true, max: config.API_RATE_PER_MINUTE, timeWindow: '1 minute' });
  await registerOpenApi(app, VERSION);
  registerGuard(app, {
    db: deps.db,
    whitelist: deps.whitelist,
    sessions: new SessionCache(deps.db, { announcedSince: bus.announcedSince?.bind(bus) }),
    bus,
  });

  await app.register(healthRoutes, { deps });
  await app.register(authRoutes, { deps });
  await app.register(staffRoutes, { deps });
  await app.register(accessListRoutes, { deps });
  await app.register(auditRoutes, { deps });
  const auditCheckpoints = new AuditCheckpointWriter({
    db: deps.db,
    file: checkpointFile(config.dataDir),
    key: () => chainKey,
    log: app.log,
  });
  app.decorate('auditCheckpoints', auditCheckpoints);
  app.addHook('onClose', async () => {
    await auditCheckpoints.stop();
  });
  await app.register(dashboardRoutes, { deps });
  // The dashboard's daily rollups count days in this zone (rebuilt once when it changed).
  if (await syncDashboardTimezone(deps.db, config.BUSINESS_TIMEZONE)) {
    app.log.info({ timezone: config.BUSINESS_TIMEZONE }, 'dashboard rollups rebuilt for the business time zone');
  }
  await app.register(clientsRoutes, { deps });
  await app.register(exportRoutes, { deps });
  await app.register(depositRoutes, { deps });
  await app.register(commentRoutes, { deps });
  await app.register(reminderRoutes, { deps });
  await app.register(notificationRoutes, { deps });
  await app.register(clientAccountRoutes, { deps });
  await app.register(importRoutes, { deps });
  const notificationWorker = new NotificationWorker({ db: deps.db, bus, log: app.log });
  app.decorate('notificationWorker', notificationWorker);
  app.addHook('onListen', async () => {
    notificationWorker.start();
  });
  app.addHook('onClose', async () => {
    await notificationWorker.stop();
  });

  // With a database URL, several processes may share the database: the engine elects one price-feed leader.
  const engine = new TradingEngine({ db: deps.db, config, log: app.log, bus, dbKind: database.kind, databaseUrl });
  app.decorate('engine', engine);
  app.addHook('onClose', async () => {
    await engine.stop();
    if (!givenBus) await bus.close();
  });
  await registerLiveGateway(app, deps, engine.prices, liveStreamReader(deps.db));
  await app.register(priceRoutes, { deps, engine });
  await app.register(priceLogRoutes, { deps, engine });
  await app.register(tradingRoutes, { engine });
  await app.register(tradingAdminRoutes, {
    engine,
    manualCreditMaxCents: Math.round(config.MANUAL_CREDIT_MAX * 100),
    secondApprovalCents: Math.round(config.MANUAL_CREDIT_SECOND_APPROVAL * 100),
  });
  await app.register(voidRequestRoutes, { engine });
  await app.register(withdrawalRoutes, { deps });
  await app.register(manualCreditRoutes, { deps });
  await app.register(depositMethodRoutes, { deps });
  await app.register(depositIntentRoutes, { deps });
  await app.register(clientMessageRoutes, { deps });
  await app.register(siteContentRoutes, { deps, engine });
  await app.register(marketInfoRoutes, { deps, now: () => engine.now() });
  await app.register(affiliateRoutes, { deps });
  await app.register(integrationRoutes, { deps });
  const postbackWorker = new PostbackWorker({
    db: deps.db,
    vault: deps.vault,
    rules: { allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS },
    log: app.log,
    databaseUrl,
    leaderRetryMs: config.FEED_LEADER_RETRY_MS,
    leaseMs: config.FEED_LEASE_MS,
  });
  app.decorate('postbackWorker', postbackWorker);
  app.addHook('onClose', async () => {
    await postbackWorker.stop();
  });
  await app.register(affiliateTokenRoutes, { deps });
  await app.register(externalApiRoutes, { deps });
  await app.register(statementRoutes, { deps });
  await app.register(mailRoutes, { deps });
  const mailWorker = new MailWorker({
    db: deps.db,
    mail: deps.mail,
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM,
    timeZone: config.BUSINESS_TIMEZONE,
    log: app.log,
    databaseUrl,
    leaderRetryMs: config.FEED_LEADER_RETRY_MS,
    leaseMs: config.FEED_LEASE_MS,
  });
  app.decorate('mailWorker', mailWorker);
  app.addHook('onClose', async () => {
    await mailWorker.stop();
  });

  const hasWeb = await registerWebApp(app, config.WEB_DIST ? path.resolve(config.WEB_DIST) : DEFAULT_WEB_DIST);
  registerNotFound(app, hasWeb);
  return app;
}
