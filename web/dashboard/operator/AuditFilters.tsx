import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { href } from '../route.ts';
import { Field, Select } from '../ui.tsx';
import type { ConsoleIntegrator } from './types.ts';
import './operator.css';

/** The audit log's scope for the operator's own actions. */
const OPERATOR_SCOPE = 'operator';

/** Each integrator's name by its id, for the operator's staff (empty for a platform's people, or until it came). */
export function useIntegratorNames(operator: boolean): Map<string, string> {
  const [names, setNames] = useState(new Map<string, string>());
  useEffect(() => {
    if (!operator) return;
    // The names only make the log easier to read: without them it shows the ids.
    call<{ data: ConsoleIntegrator[] }>('GET', '/operator/integrators/').then(
      (answer) => setNames(new Map(answer.data.map((one) => [one.integrator_id, one.name]))),
      () => undefined,
    );
  }, [operator]);
  return names;
}

/** An entry's scope in words: the integrator's name and id, or the operator. */
export function scopeName(scope: string | undefined, names: Map<string, string>) {
  if (!scope) return '—';
  if (scope === OPERATOR_SCOPE) return 'Operator';
  const name = names.get(scope);
  return (
    <>
      {name ?? scope}
      {name ? <span class="mono hint block">{scope}</span> : null}
    </>
  );
}

/** Narrows the whole log to one integrator (or the operator's own) and one action, through the address. */
export function AuditFilters(props: { names: Map<string, string>; integratorId?: string; action?: string }) {
  const [integratorId, setIntegratorId] = useState(props.integratorId ?? '');
  const [action, setAction] = useState(props.action ?? '');
  useEffect(() => {
    setIntegratorId(props.integratorId ?? '');
    setAction(props.action ?? '');
  }, [props.integratorId, props.action]);

  const options: [string, string][] = [
    ['', 'Every integrator and the operator'],
    [OPERATOR_SCOPE, 'The operator’s own'],
    ...[...props.names].map(([id, name]): [string, string] => [id, `${name} (${id})`]),
  ];
  // An address naming an integrator not (yet) listed still shows what it filters on.
  if (integratorId && !options.some(([value]) => value === integratorId))
    options.push([integratorId, integratorId]);

  const submit = (event: Event) => {
    event.preventDefault();
    location.hash = href('audit-log', [], { integrator_id: integratorId, action: action.trim() });
  };
  return (
    <form class="actions audit-filters" onSubmit={submit} aria-label="Filter the audit log">
      <Select
        id="audit-integrator"
        label="Integrator"
        value={integratorId}
        options={options}
        onValue={setIntegratorId}
      />
      <Field
        id="audit-action"
        label="Action"
        hint="e.g. integrator.suspend"
        value={action}
        onValue={setAction}
        maxLength={100}
        spellcheck={false}
      />
      <div class="buttons">
        <button type="submit">Filter</button>
        {props.integratorId || props.action ? <a href={href('audit-log')}>Show everything</a> : null}
      </div>
    </form>
  );
}
