/**
 * One customer: packages, credits, the create-token form and the tokens table. Owns the one-time secret
 * dialog: the secret is held in state only while the dialog is open and dropped when it closes.
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { AdminClient, TokenWithSecret } from '../admin-client.ts';
import { CreateTokenForm } from './CreateTokenForm.tsx';
import { Credits } from './Credits.tsx';
import { formatDate } from './datetime.ts';
import { Chips } from './kit/index.ts';
import { LoadedSection } from './LoadState.tsx';
import { SecretDialog, type ShownSecret } from './SecretDialog.tsx';
import { TokensTable } from './TokensTable.tsx';
import { useLoad } from './use-load.ts';

/** `canWrite`: the viewer may create, rotate, (de)activate and delete tokens (else the page is read-only). */
export function CustomerView({ api, customer, canWrite = true }: { api: AdminClient; customer: CustomerRecord; canWrite?: boolean }) {
  const tokens = useLoad(() => api.tokens(customer.id), [api, customer.id]);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [notice, setNotice] = useState('');

  const show = (title: string, t: TokenWithSecret) => {
    setSecret({
      title,
      name: t.name,
      value: t.token,
      kind: 'Token secret',
      note: (
        <>
          <strong>Copy this token secret now: you will not see it again.</strong> Only a hash is stored; if it is lost, rotate the token.
        </>
      ),
    });
    tokens.reload();
  };

  return (
    <div class="customer">
      <section class="customer-head" aria-labelledby="customer-name">
        <h2 id="customer-name">{customer.name}</h2>
        <p class="muted">
          id <code>{customer.id}</code> · contract from {formatDate(customer.contract_start)}
        </p>
        <Chips label="Packages" items={customer.packages.map((p) => ({ key: p, label: p }))} empty="no packages" />
      </section>

      <Credits api={api} customerId={customer.id} />

      {canWrite && <CreateTokenForm api={api} customer={customer} onCreated={(t) => show(`Token “${t.name}” created`, t)} />}

      <LoadedSection id="tokens-title" title="Tokens" load={tokens} what="the tokens" loading="Loading tokens…" notice={notice}>
        {tokens.data && (
          <TokensTable
            api={api}
            tokens={tokens.data}
            onChanged={(message) => {
              setNotice(message);
              tokens.reload();
            }}
            onRotated={(t) => show(`Token “${t.name}” rotated`, t)}
            canWrite={canWrite}
          />
        )}
      </LoadedSection>

      {secret && <SecretDialog secret={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}
