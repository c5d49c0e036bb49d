/**
 * Sending a digest over SMTP (SVC_SMTP_URL, nodemailer), with the one-click unsubscribe headers of RFC 8058
 * (`List-Unsubscribe` with the https/http URL, `List-Unsubscribe-Post: List-Unsubscribe=One-Click`)
 * and a Message-ID made of the user and period, so a receiver that sees the same digest twice (a node that
 * died between the server's acceptance and its note of it) can tell. A send resolves when the mail server
 * accepted the mail and rejects otherwise: the caller decides on retries.
 */
import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { RenderedDigest } from './render.ts';

export interface DigestMail {
  to: string;
  digest: RenderedDigest;
  /** The one-click URL (GET shows a confirm page, POST unsubscribes). */
  unsubscribeUrl: string;
  /** `<user id>.<period>`: the stable part of the Message-ID. */
  id: string;
}

export interface DigestMailer {
  send(mail: DigestMail): Promise<void>;
}

/** The sender's address of SVC_SMTP_FROM (`Name <a@b>` or `a@b`): its domain names the Message-IDs. */
function senderAddress(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

/** A digest mailer when SMTP is configured, else null (digests are then never due: nothing could send them). */
export function createDigestMailer(config: Pick<Config, 'SVC_SMTP_URL' | 'SVC_SMTP_FROM'>): DigestMailer | null {
  if (!config.SVC_SMTP_URL) return null;
  // The same bounds as the invitation mails (users/mailer.ts): a stalled mail server must not hold a claim's lease.
  const transport = nodemailer.createTransport(
    { url: config.SVC_SMTP_URL, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 },
    { from: config.SVC_SMTP_FROM },
  );
  const sender = senderAddress(config.SVC_SMTP_FROM);
  const domain = sender.includes('@') ? sender.slice(sender.lastIndexOf('@') + 1) : 'localhost';
  return {
    async send({ to, digest, unsubscribeUrl, id }) {
      await transport.sendMail({
        to,
        subject: digest.subject,
        text: digest.text,
        html: digest.html,
        messageId: `<digest.${id.replace(/[^A-Za-z0-9_.-]/g, '-')}@${domain}>`,
        // The URL only: no mailbox reads a mailto unsubscribe, and one that goes unread would be a false promise.
        list: { unsubscribe: unsubscribeUrl },
        headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated' },
      });
    },
  };
}
