import { useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, Field, messageOf, OnceSecret, useFocusOnMount } from '../ui.tsx';
import { ENVIRONMENT_NAMES, originsOf } from './format.ts';
import { PageTop } from './PageTop.tsx';
import type { CreatedIntegrator } from './types.ts';

/** A new integrator (`#integrators/new`): its name, webhook URL and origins; its credentials shown once. */
export function CreateIntegrator(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const [name, setName] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [origins, setOrigins] = useState('');
  const [errors, setErrors] = useState<{ name?: string; webhook_url?: string; allowed_origins?: string }>({});
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedIntegrator>();
  const nameRef = useRef<HTMLInputElement>(null);

  if (!props.me.permissions.includes('integrators.manage')) {
    return (
      <>
        <h1 ref={heading} tabIndex={-1}>
          Create an integrator
        </h1>
        <p>Your role cannot create integrators: an operator admin can.</p>
      </>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    if (!name.trim()) {
      setErrors({ name: 'Enter the platform’s name.' });
      nameRef.current?.focus();
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const body: Record<string, unknown> = { name: name.trim() };
      if (webhookUrl.trim()) body.webhook_url = webhookUrl.trim();
      const allowed = originsOf(origins);
      if (allowed.length > 0) body.allowed_origins = allowed;
      setCreated(await call<CreatedIntegrator>('POST', '/operator/integrators/', body));
    } catch (error) {
      if (error instanceof ApiError && Object.keys(error.fields).length > 0) {
        const originPaths = Object.keys(error.fields).filter((path) => path.startsWith('allowed_origins'));
        setErrors({
          name: error.field('name'),
          webhook_url: error.field('webhook_url'),
          allowed_origins: originPaths.map((path) => error.field(path)).join(' ') || undefined,
        });
        setProblem(error.rest(['name', 'webhook_url', ...originPaths]));
      } else {
        setProblem(messageOf(error));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTop back={href('integrators')} backText="All integrators" heading={heading}>
        Create an integrator
      </PageTop>
      {created ? (
        <>
          <p>
            {created.name} ({ENVIRONMENT_NAMES[created.environment]}) was created as{' '}
            <span class="mono">{created.integrator_id}</span>. Hand its server token and webhook signing
            secret to the platform; its admin sets fees, reminders and the rest from their dashboard.
          </p>
          <OnceSecret
            id="new-server-token"
            label={`Server token of ${created.name}`}
            value={created.server_token}
          >
            <OnceSecret
              id="new-webhook-secret"
              label={`Webhook signing secret of ${created.name}`}
              value={created.webhook_secret}
            />
          </OnceSecret>
          <p>
            <a href={href('integrators', [created.integrator_id])}>Go to {created.name}</a>
          </p>
        </>
      ) : (
        <form class="inline-form" onSubmit={submit} noValidate>
          {problem ? <Alert focus>{problem}</Alert> : null}
          <Field
            id="integrator-name"
            label="Name"
            value={name}
            onValue={setName}
            maxLength={200}
            error={errors.name}
            inputRef={nameRef}
          />
          <Field
            id="integrator-webhook-url"
            label="Webhook URL (optional)"
            type="url"
            inputMode="url"
            hint="Where rentpay sends the platform’s events. The platform can set it later."
            value={webhookUrl}
            onValue={setWebhookUrl}
            maxLength={2048}
            error={errors.webhook_url}
          />
          <Field
            id="integrator-origins"
            label="Allowed origins (optional)"
            hint="The sites that may show the payment page, separated by spaces or commas, e.g. https://platform.example"
            value={origins}
            onValue={setOrigins}
            error={errors.allowed_origins}
          />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create integrator'}
          </button>
        </form>
      )}
    </>
  );
}
