/**
 * `svc digest send`: a customer's email digests sent now, from the operator's shell (and tests), for the
 * last complete period (yesterday, or last Monday to Sunday) in each user's time zone. The same claims as
 * the servers' schedule (server/digests/): a digest a node sent already is not sent again, and one sent
 * here is not sent again by a node. Users whose digest is off are skipped: an unsubscribe holds here too.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { UserRecord } from '../../core/user-records.ts';
import { CATALOG_FILE } from '../../data/catalog/schema.ts';
import { serverBaseUrl } from '../config.ts';
import type { Command } from './commands.ts';
import { emit, requireOption, UsageError } from './output.ts';
import { withStore } from './with-store.ts';

interface Result {
  email: string;
  period: string | null;
  outcome: string;
}

export const DIGEST_COMMANDS: Record<string, Command> = {
  'digest send': {
    usage: 'digest send --customer ID [--user EMAIL] [--period day|week]',
    summary: "send a customer's email digests now (each user's, or one user's) for the last complete day or week",
    help: '\nWithout --period, each user gets their own digest (daily: yesterday; weekly: last week). A digest already sent for that\nperiod (by a server or an earlier command) is not sent again; users whose digest is off are skipped. Needs SVC_SMTP_URL.\n',
    options: { customer: { type: 'string' }, user: { type: 'string' }, period: { type: 'string' } },
    async run(v, _p, ctx) {
      const period = v.period as string | undefined;
      if (period !== undefined && period !== 'day' && period !== 'week') throw new UsageError('--period is day or week');
      const customerId = requireOption(v, 'customer');
      const results = await withStore(ctx.io, async (store, config, backend) => {
        if (!config.SVC_SMTP_URL) throw new UsageError('SVC_SMTP_URL is not set: digests are sent by mail');
        const customer = await store.getCustomer(customerId);
        if (!customer) throw new UsageError(`unknown customer ${customerId}`);
        const file = join(config.SVC_DATA, CATALOG_FILE);
        if (!existsSync(file)) throw new UsageError(`${file} not found: build the data first`);
        const [{ openCatalog }, { Digests }, { createDigestMailer }, { lastPeriod }] = await Promise.all([
          import('../data/catalog.ts'),
          import('../digests/service.ts'),
          import('../digests/mail.ts'),
          import('../digests/period.ts'),
        ]);
        const catalog = openCatalog(file);
        try {
          const digests = new Digests({
            store: backend.digests,
            users: backend.users,
            customers: store,
            dataset: { current: { catalog } },
            visits: backend.visits,
            crm: backend.crm,
            engagement: backend.engagement,
            owners: backend.alerts,
            mailer: createDigestMailer(config),
            baseUrl: serverBaseUrl(config),
            now: Date.now,
            log: { info: () => {}, warn: (o, m) => ctx.io.stderr.write(`svc digest: ${m} ${JSON.stringify(o)}\n`) },
          });
          let users: UserRecord[];
          if (v.user !== undefined) {
            const user = await backend.users.findUserByEmail(requireOption(v, 'user'));
            if (!user || user.customer_id !== customer.id) throw new UsageError(`${v.user} is not a user of ${customer.id}`);
            const { password_hash: _, ...record } = user;
            users = [record];
          } else {
            users = await backend.users.listUsers(customer.id);
          }
          const out: Result[] = [];
          for (const user of users) {
            const settings = await digests.settingsOf(user);
            if (settings.digest === 'off') {
              if (v.user !== undefined) out.push({ email: user.email, period: null, outcome: 'off' });
              continue;
            }
            const p = lastPeriod((period as 'day' | 'week' | undefined) ?? (settings.digest === 'weekly' ? 'week' : 'day'), settings.time_zone, Date.now());
            out.push({ email: user.email, period: p.key, outcome: await digests.send(user, customer, settings, p) });
          }
          return out;
        } finally {
          catalog.close();
        }
      });
      const sent = results.filter((r) => r.outcome === 'sent').length;
      emit(ctx, { customer: customerId, sent, results }, () =>
        results.length === 0
          ? `no user of ${customerId} has a digest on`
          : results.map((r) => `${r.email} ${r.period ?? '-'}: ${r.outcome}`).join('\n') + `\n${sent} sent`,
      );
      return results.some((r) => r.outcome === 'retry' || r.outcome === 'failed') ? 1 : 0;
    },
  },
};
