import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, type WebhookEndpoint } from './api.ts';
import type { SectionProps } from './Shell.tsx';
import { Alert, Field, messageOf, Notice, OnceSecret, Select, useFocusOnMount, When } from './ui.tsx';
import { Events, STATUS_NAMES } from './WebhookEvents.tsx';

const OVERLAPS = [
  ['86400', '24 hours'],
  ['3600', '1 hour'],
  ['604800', '7 days'],
  ['0', 'No time: it stops now'],
] as const;

/** The developer pages: the server token, the webhook endpoint, and events with their delivery attempts. */
export function Developers(props: SectionProps) {
  const { me } = props;
  // `#developers/events?status=failed` (the home page's webhook figures) opens the events with that status.
  const toEvents = props.route.path[0] === 'events';
  const asked = props.route.query.get('status') ?? '';
  const eventStatus = toEvents && asked in STATUS_NAMES ? asked : '';
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading && !toEvents);
  const may = (permission: 'credentials.manage' | 'webhooks.manage') => me.permissions.includes(permission);
  // A test event sent from the endpoint's card shows in the events at once.
  const [sent, setSent] = useState(0);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Developers
      </h1>
      {may('credentials.manage') ? <ServerToken /> : null}
      <Endpoint manage={may('webhooks.manage')} onSent={() => setSent(sent + 1)} />
      <Events
        manage={may('webhooks.manage')}
        sent={sent}
        status={eventStatus}
        moveTo={toEvents}
        focusHeading={props.focusHeading}
      />
    </>
  );
}

function ServerToken() {
  const [grace, setGrace] = useState('86400');
  const [busy, setBusy] = useState(false);
  const [rotated, setRotated] = useState<{ token: string; previous_token_expires_at: string }>();
  const [problem, setProblem] = useState<string>();
  const rotate = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      setRotated(await call('POST', '/api-token/rotate/', { grace_period_seconds: Number(grace) }));
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="token-heading">
      <h2 id="token-heading">Server token</h2>
      <p>
        Your servers send it to the Integration API. Rotating it issues a new token; the current one keeps
        working for the time you choose, so you can deploy the new one first.
      </p>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {rotated ? (
        <OnceSecret id="new-token" label="New server token" value={rotated.token}>
          <p>
            The previous token works until <When at={rotated.previous_token_expires_at} />.
          </p>
        </OnceSecret>
      ) : null}
      <div class="actions">
        <Select
          id="token-grace"
          label="The current token keeps working for"
          value={grace}
          options={OVERLAPS}
          onValue={setGrace}
        />
        <button type="button" onClick={rotate} disabled={busy}>
          {busy ? 'Rotating…' : 'Rotate server token'}
        </button>
      </div>
    </section>
  );
}

function Endpoint(props: { manage: boolean; onSent(): void }) {
  const [endpoint, setEndpoint] = useState<WebhookEndpoint>();
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState<string>();
  const [overlap, setOverlap] = useState('86400');
  const [busy, setBusy] = useState<'save' | 'remove' | 'rotate' | 'ping'>();
  const [secret, setSecret] = useState<{ label: string; value: string; until?: string }>();
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const urlRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    call<WebhookEndpoint>('GET', '/webhook-endpoint/').then(
      (found) => {
        setEndpoint(found);
        setUrl(found.url ?? '');
      },
      (error) => setProblem(messageOf(error)),
    );
  }, []);

  const act = async (kind: 'save' | 'remove' | 'rotate' | 'ping', work: () => Promise<void>) => {
    setBusy(kind);
    setProblem(undefined);
    setNotice(undefined);
    setUrlError(undefined);
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.field('url')) {
        setUrlError(error.field('url'));
        urlRef.current?.focus();
      } else setProblem(messageOf(error));
    } finally {
      setBusy(undefined);
    }
  };

  const save = (event: Event) => {
    event.preventDefault();
    const typed = url.trim();
    if (!typed) {
      setUrlError('Enter the URL that should receive events, or remove the URL instead.');
      urlRef.current?.focus();
      return;
    }
    return act('save', async () => {
      const saved = await call<WebhookEndpoint>('PUT', '/webhook-endpoint/', { url: typed });
      setEndpoint(saved);
      setUrl(saved.url ?? '');
      if (saved.secret) setSecret({ label: 'Signing secret', value: saved.secret });
      setNotice('Webhook URL saved.');
    });
  };

  const remove = () =>
    act('remove', async () => {
      const saved = await call<WebhookEndpoint>('PUT', '/webhook-endpoint/', { url: null });
      setEndpoint(saved);
      setUrl('');
      setNotice('Webhook URL removed: events are kept and listed, not sent.');
    });

  const rotate = () =>
    act('rotate', async () => {
      const rotated = await call<{ secret: string; previous_secret_expires_at: string }>(
        'POST',
        '/webhook-endpoint/rotate-secret/',
        { overlap_seconds: Number(overlap) },
      );
      setSecret({
        label: 'New signing secret',
        value: rotated.secret,
        until: rotated.previous_secret_expires_at,
      });
      setEndpoint((known) =>
        known ? { ...known, previous_secret_expires_at: rotated.previous_secret_expires_at } : known,
      );
    });

  const ping = () =>
    act('ping', async () => {
      const sent = await call<{ event_id: string }>('POST', '/webhook-endpoint/ping/');
      setNotice(`Test event ${sent.event_id} sent: it is in the events below.`);
      props.onSent();
    });

  return (
    <section class="card" aria-labelledby="endpoint-heading">
      <h2 id="endpoint-heading">Webhook endpoint</h2>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {notice ? <Notice>{notice}</Notice> : null}
      {!endpoint ? (
        problem ? null : (
          <p role="status">Loading…</p>
        )
      ) : (
        <>
          <dl class="facts">
            <dt>URL</dt>
            <dd class="break">{endpoint.url ?? 'None: events are kept and listed, not sent.'}</dd>
            <dt>State</dt>
            <dd>
              {endpoint.state === 'enabled'
                ? 'Enabled'
                : 'Disabled: the URL answered 410 Gone. Save a URL again to send to it.'}
            </dd>
            {endpoint.previous_secret_expires_at ? (
              <>
                <dt>Previous secret signs until</dt>
                <dd>
                  <When at={endpoint.previous_secret_expires_at} />
                </dd>
              </>
            ) : null}
          </dl>
          {secret ? (
            <OnceSecret id="webhook-secret" label={secret.label} value={secret.value}>
              {secret.until ? (
                <p>
                  The previous secret also signs each delivery until <When at={secret.until} />.
                </p>
              ) : null}
            </OnceSecret>
          ) : null}
          {props.manage ? (
            <>
              <form class="inline-form" onSubmit={save} noValidate>
                <Field
                  id="webhook-url"
                  label="Webhook URL"
                  hint="An https URL of your servers; rentpay signs each event it sends there."
                  type="url"
                  inputMode="url"
                  autocomplete="url"
                  spellcheck={false}
                  value={url}
                  onValue={setUrl}
                  error={urlError}
                  inputRef={urlRef}
                />
                <div class="buttons">
                  <button type="submit" disabled={busy !== undefined}>
                    {busy === 'save' ? 'Saving…' : 'Save URL'}
                  </button>
                  {endpoint.url ? (
                    <button type="button" class="danger" onClick={remove} disabled={busy !== undefined}>
                      {busy === 'remove' ? 'Removing…' : 'Remove URL'}
                    </button>
                  ) : null}
                  <button type="button" onClick={ping} disabled={busy !== undefined}>
                    {busy === 'ping' ? 'Sending…' : 'Send test event'}
                  </button>
                </div>
              </form>
              <div class="actions">
                <Select
                  id="secret-overlap"
                  label="The current secret keeps signing for"
                  value={overlap}
                  options={OVERLAPS}
                  onValue={setOverlap}
                />
                <button type="button" onClick={rotate} disabled={busy !== undefined}>
                  {busy === 'rotate' ? 'Rotating…' : 'Rotate signing secret'}
                </button>
              </div>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
