/**
 * What the webhook dispatcher needs to plan and send alerts (server/webhooks/service.ts AlertDispatch),
 * built by serve.ts from the state stores:
 *
 * - facts: once per recorded view of a customer with live alerts — the account's owner (./owners.ts), the
 *   account lists it is on, the stages it reached for the first time (only for the (product, stage) pairs
 *   a live stage_reached alert watches: the mark is set in the alerts' state, one atomic step, so two nodes
 *   never both see it new), and for a first_visit alert the latest earlier day with a view (the visit store's
 *   per-day aggregates over the longest lookback asked).
 * - sendMail: nodemailer over SVC_SMTP_URL (none configured: mail deliveries fail, retried, logged).
 * - claimMail: the day's mark of (recipient, account) in the alerts' state (≤ 1 alert mail a day).
 *
 * A store that cannot answer gives facts that fire less, never more: no owner, no stage reached, a visit
 * the day before (so first_visit stays quiet rather than greeting every account after an outage).
 */
import nodemailer from 'nodemailer';
import { BUYING_STAGES } from '../../core/vocabulary.ts';
import type { Config } from '../config.ts';
import type { Catalog } from '../data/catalog.ts';
import type { AlertStateStore } from '../state/alerts/store.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { StateStore } from '../state/store.ts';
import type { UserStore } from '../state/users/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { type AlertFacts, FIRST_VISIT_MAX_DAYS, type PageViewForWebhooks, type PlanningEndpoint } from '../webhooks/events.ts';
import type { AlertDispatch, OutgoingMail } from '../webhooks/service.ts';
import { findOwner } from './owners.ts';

export interface AlertDispatchDeps {
  alerts: AlertStateStore;
  store: StateStore;
  users: UserStore;
  visits: VisitStore;
  catalog: () => Catalog;
  /** The CRM sync's store (owners read back); null without it. */
  crm: () => CrmStore | null;
  config: Pick<Config, 'SVC_SMTP_URL' | 'SVC_SMTP_FROM'>;
  reportError(e: unknown): void;
}

const dayBefore = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

export function alertDispatch(deps: AlertDispatchDeps): AlertDispatch {
  const transport = deps.config.SVC_SMTP_URL
    ? nodemailer.createTransport(
        { url: deps.config.SVC_SMTP_URL, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 },
        { from: deps.config.SVC_SMTP_FROM },
      )
    : null;
  const quiet =
    <T>(fallback: T) =>
    (e: unknown): T => {
      deps.reportError(e);
      return fallback;
    };
  return {
    async facts(view: PageViewForWebhooks, alerts: readonly PlanningEndpoint[]): Promise<AlertFacts> {
      const companyId = view.company_id!;
      const company = deps.catalog().company(companyId);
      const customer = await deps.store.getCustomer(view.customer_id).catch(quiet(null));
      const lists = (customer?.account_lists ?? []).filter((l) => l.company_ids.includes(companyId)).map((l) => l.id);
      const triggers = alerts.map((a) => a.alert!.trigger);
      const wantsOwner = alerts.some((a) => a.alert!.route_to_owner !== null || a.alert!.filter.owner !== undefined);
      const owner =
        wantsOwner && company
          ? await findOwner(
              {
                alerts: deps.alerts,
                crm: deps.crm(),
                isUser: async (c, email) => (await deps.users.findUserByEmail(email))?.customer_id === c,
              },
              view.customer_id,
              company,
            ).catch(quiet(null))
          : null;
      // Stages at or past each watched one, for the product's score with this view: marked, the new ones reached.
      const scores = view.enriched?.scores ?? [];
      const watched = triggers.flatMap((t) => (t.type === 'stage_reached' ? [{ product: t.product, stage: t.stage }] : []));
      const atOrPast = watched.filter((w) => {
        const score = scores.find((s) => s.product === w.product);
        return score !== undefined && BUYING_STAGES.indexOf(score.buying_stage) >= BUYING_STAGES.indexOf(w.stage as (typeof BUYING_STAGES)[number]);
      });
      const unique = [...new Map(atOrPast.map((m) => [`${m.product}|${m.stage}`, m])).values()];
      const reached = unique.length ? await deps.alerts.markStages(view.customer_id, companyId, unique, Date.parse(view.at)).catch(quiet([])) : [];
      const lookback = Math.max(0, ...triggers.map((t) => (t.type === 'first_visit' ? Math.min(t.days, FIRST_VISIT_MAX_DAYS) : 0)));
      let previous: string | null = dayBefore(view.day, 1);
      if (lookback > 0 && view.first_of_day_for_account) {
        const pages = await deps.visits.accountPages(view.customer_id, companyId, dayBefore(view.day, lookback + 1), dayBefore(view.day, 1)).catch(quiet(null));
        previous =
          pages === null ? dayBefore(view.day, 1) : pages.reduce<string | null>((latest, p) => (latest === null || p.day > latest ? p.day : latest), null);
      }
      return { reached, previous_visit_day: previous, lists, owner };
    },
    sendMail: transport
      ? async (mail: OutgoingMail) => {
          await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
        }
      : null,
    claimMail: (customerId, recipient, companyId, day, holder) => deps.alerts.claimMail(customerId, recipient, companyId, day, holder),
  };
}
