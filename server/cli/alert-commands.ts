/**
 * `svc alert …`: a customer's alerts from the operator's shell — list them, create one (the same rules as
 * the API: server/alerts/service.ts), and queue a labelled test through the outbox (a running server's
 * dispatcher sends it; the delivery log shows it). Changes are in the customer's audit log (actor
 * `operator`). Reads the state store directly: no server needs to run for list and create.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../core/error-codes.ts';
import { CATALOG_FILE } from '../../data/catalog/schema.ts';
import { NewAlert } from '../alerts/schema.ts';
import { alertOr404, alertView, createAlert, listAlerts, queueTest } from '../alerts/service.ts';
import type { Backend } from '../state/backend.ts';
import type { Command } from './commands.ts';
import { emit, requireOption, UsageError } from './output.ts';
import { auditAsOperator, withStore } from './with-store.ts';

async function customerOf(backend: Backend, v: Record<string, unknown>) {
  const id = requireOption(v, 'customer');
  const customer = await backend.state.getCustomer(id);
  if (!customer) throw new UsageError(`unknown customer ${id}`);
  return customer;
}

/** `segment_entered:101`, `hot[:/pricing*]`, `stage_reached:cdp:Decision`, `first_visit:30`, `visited:/pricing*`. */
export function triggerOption(text: string): unknown {
  const [type, ...rest] = text.split(':');
  const arg = rest.join(':');
  switch (type) {
    case 'segment_entered':
      return { type, segment: Number(arg) };
    case 'hot':
      return { type, hot_paths: arg ? arg.split(',') : [] };
    case 'stage_reached':
      return { type, product: rest.slice(0, -1).join(':'), stage: rest.at(-1) };
    case 'first_visit':
      return { type, days: Number(arg) };
    case 'visited':
      return { type, path: arg };
    default:
      throw new UsageError('--trigger is one of segment_entered:ID, hot[:PATHS], stage_reached:PRODUCT:STAGE, first_visit:DAYS, visited:PATH');
  }
}

function destinationOption(v: Record<string, unknown>): unknown {
  const given = (['slack', 'teams', 'email', 'webhook'] as const).filter((k) => typeof v[k] === 'string');
  if (given.length !== 1) throw new UsageError('give one destination: --slack URL, --teams URL, --email ADDRESSES (comma-separated) or --webhook URL');
  const type = given[0]!;
  const value = v[type] as string;
  return type === 'email' ? { type, to: value.split(',').map((s) => s.trim()) } : { type, url: value };
}

const line = (a: ReturnType<typeof alertView>) =>
  `${a.id}  ${a.paused ? '(paused) ' : ''}${a.name} — ${a.trigger.type} → ${a.destination.type}${a.destination.url ? ` ${a.destination.url}` : ''}${
    a.destination.to ? ` ${a.destination.to.join(', ')}` : ''
  }${a.route_to_owner ? ' + owner' : ''}`;

export const ALERT_COMMANDS: Record<string, Command> = {
  'alert list': {
    usage: 'alert list --customer ID',
    summary: "list a customer's alerts (Slack and Teams URLs masked)",
    options: { customer: { type: 'string' } },
    async run(v, _p, ctx) {
      const alerts = await withStore(ctx.io, async (_s, _c, backend) => (await listAlerts(backend.outbox, (await customerOf(backend, v)).id)).map(alertView));
      emit(ctx, alerts, () => (alerts.length ? alerts.map(line).join('\n') : 'no alerts'));
    },
  },
  'alert create': {
    usage:
      'alert create --customer ID --name NAME --trigger TRIGGER (--slack URL | --teams URL | --email A,B | --webhook URL) [--filter JSON] [--route-to-owner] [--fallback A,B] [--paused]',
    summary: 'create an alert: a trigger, a destination, optionally routed to the account’s owner',
    help: '\nTRIGGER: segment_entered:ID, hot[:/pricing*,/demo*], stage_reached:PRODUCT:STAGE, first_visit:DAYS, visited:/pricing*\n--filter: JSON such as {"segments":[101],"min_page_views":2,"owner":"with"}\n',
    options: {
      customer: { type: 'string' },
      name: { type: 'string' },
      trigger: { type: 'string' },
      slack: { type: 'string' },
      teams: { type: 'string' },
      email: { type: 'string' },
      webhook: { type: 'string' },
      filter: { type: 'string' },
      'route-to-owner': { type: 'boolean' },
      'instead-of-channel': { type: 'boolean' },
      fallback: { type: 'string' },
      paused: { type: 'boolean' },
    },
    async run(v, _p, ctx) {
      let filter: unknown = {};
      if (typeof v.filter === 'string') {
        try {
          filter = JSON.parse(v.filter);
        } catch {
          throw new UsageError('--filter must be JSON');
        }
      }
      const routing =
        v['route-to-owner'] === true
          ? {
              instead_of_channel: v['instead-of-channel'] === true,
              ...(typeof v.fallback === 'string' ? { fallback: { to: v.fallback.split(',').map((s) => s.trim()) } } : {}),
            }
          : undefined;
      const parsed = NewAlert.safeParse({
        name: requireOption(v, 'name'),
        trigger: triggerOption(requireOption(v, 'trigger')),
        filter,
        destination: destinationOption(v),
        ...(routing ? { route_to_owner: routing } : {}),
        paused: v.paused === true,
      });
      if (!parsed.success) throw new UsageError(`${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
      const out = await withStore(ctx.io, async (_s, config, backend) => {
        const customer = await customerOf(backend, v);
        try {
          const { record, secret } = await createAlert(
            backend.outbox,
            customer,
            parsed.data,
            { mayWebhook: true, name: 'operator' },
            config.SVC_WEBHOOK_ALLOW_PRIVATE,
          );
          const view = alertView(record);
          await auditAsOperator(backend.users, { customer: customer.id, action: 'alert.create', target: record.id, after: view });
          return secret ? { ...view, secret } : view;
        } catch (e) {
          if (e instanceof ApiError) throw new UsageError(e.message);
          throw e;
        }
      });
      emit(ctx, out, () => `created ${line(out)}${'secret' in out ? `\nsigning secret (shown once): ${out.secret}` : ''}`);
    },
  },
  'alert test': {
    usage: 'alert test --customer ID --alert ALERT_ID',
    summary: 'queue a test of an alert (labelled TEST) in the outbox; a running server sends it and its delivery log shows it',
    options: { customer: { type: 'string' }, alert: { type: 'string' } },
    async run(v, _p, ctx) {
      const out = await withStore(ctx.io, async (_s, config, backend) => {
        const customer = await customerOf(backend, v);
        let endpoint: Awaited<ReturnType<typeof alertOr404>>;
        try {
          endpoint = await alertOr404(backend.outbox, customer.id, requireOption(v, 'alert'));
        } catch (e) {
          if (e instanceof ApiError) throw new UsageError(e.message);
          throw e;
        }
        // The sample account from the catalog when one is built, else a made-up one.
        const file = join(config.SVC_DATA, CATALOG_FILE);
        let company = null;
        if (existsSync(file)) {
          const { openCatalog } = await import('../data/catalog.ts');
          const catalog = openCatalog(file);
          try {
            const first = customer.hot_accounts[0]?.company_id ?? catalog.companyColumns(['company_id'], '', 1)[0]?.[0];
            company = first !== undefined ? catalog.company(first) : null;
          } finally {
            catalog.close();
          }
        }
        const answer = await queueTest(backend.outbox, customer, endpoint, { company, tag: null });
        await auditAsOperator(backend.users, { customer: customer.id, action: 'alert.test', target: endpoint.id, after: { event_id: answer.event_id } });
        return answer;
      });
      emit(ctx, out, () => `test queued: delivery ${out.delivery_id ?? '(pending)'} (event ${out.event_id}); a running server sends it`);
    },
  },
};
