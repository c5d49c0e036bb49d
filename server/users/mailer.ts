/**
 * Mail for invitation and reset links, when SVC_SMTP_URL is set (nodemailer). A mail that cannot be sent
 * does not undo the link: the failure is logged, and the link is in the answer (except a user's invitation
 * of an address outside the customer's domains, which only the mail carries: users/routes.ts).
 */
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { IssuedLink } from './invitations.ts';

export interface Mailer {
  sendLink(to: string, purpose: 'invite' | 'reset', link: IssuedLink, customerName: string): Promise<boolean>;
}

/** `logError`: where a mail that could not be sent is reported (the server's log, the CLI's stderr). */
export function createMailer(config: Pick<Config, 'SVC_SMTP_URL' | 'SVC_SMTP_FROM'>, logError: (message: string) => void): Mailer | null {
  if (!config.SVC_SMTP_URL) return null;
  // The routes wait for the mail before answering: a mail server that stalls must not hold an invitation
  // for nodemailer's default minutes (measured: 30 s on a server that never greets, > 45 s on one that stalls).
  // Settings in the URL's query string still override these.
  const transport = nodemailer.createTransport(
    { url: config.SVC_SMTP_URL, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 },
    { from: config.SVC_SMTP_FROM },
  );
  return {
    async sendLink(to, purpose, link, customerName) {
      const subject = purpose === 'invite' ? `You are invited to ${customerName}'s workspace` : `Set a new password for ${customerName}'s workspace`;
      const action = purpose === 'invite' ? 'accept the invitation and choose a password' : 'choose a new password';
      const text = `Open this link to ${action}:\n\n${link.url}\n\nIt works once and until ${link.expires_at}. If you did not expect it, ignore this mail.\n`;
      try {
        await transport.sendMail({ to, subject, text });
        return true;
      } catch (e) {
        logError(`mail to ${to.replace(/^[^@]*/, '…')} not sent: ${(e as Error).message}`);
        return false;
      }
    },
  };
}
