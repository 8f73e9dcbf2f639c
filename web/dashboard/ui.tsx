/** The dashboard's small parts: labelled fields with their errors, alerts, a secret shown once, dates and roles. */

import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Role } from './api.ts';

const ROLE_NAMES: Record<Role, string> = {
  admin: 'Admin',
  developer: 'Developer',
  finance: 'Finance',
  support: 'Support',
  operator_admin: 'Operator admin',
  operator_support: 'Operator support',
};

export function roleName(role: Role): string {
  return ROLE_NAMES[role] ?? role;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A moment, in the reader's own time zone and words, with its exact value for machines. */
export function When(props: { at: string | null | undefined; empty?: string }) {
  if (!props.at) return <>{props.empty ?? '—'}</>;
  return <time dateTime={props.at}>{DATE_TIME.format(new Date(props.at))}</time>;
}

export function dateTime(at: string): string {
  return DATE_TIME.format(new Date(at));
}

/** What the dashboard's text fields set beside their value. */
interface InputProps {
  type?: 'email' | 'password' | 'url' | 'text' | 'date';
  autocomplete?: string;
  inputMode?: 'numeric' | 'url' | 'email' | 'text';
  maxLength?: number;
  spellcheck?: boolean;
  class?: string;
}

/**
 * A labelled input. Its hint and error are tied to it (aria-describedby); the error is announced (role=alert) and
 * marks the input invalid.
 */
export function Field(
  props: InputProps & {
    id: string;
    label: string;
    value: string;
    onValue(value: string): void;
    hint?: ComponentChildren;
    error?: string | undefined;
    inputRef?: RefObject<HTMLInputElement | null>;
  },
) {
  const { id, label, value, onValue, hint, error, inputRef, class: className } = props;
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={className ? `field ${className}` : 'field'}>
      <label for={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        // One of the text types; Preact's input typing wants a single literal here.
        type={(props.type ?? 'text') as 'text'}
        autocomplete={props.autocomplete}
        inputMode={props.inputMode}
        maxLength={props.maxLength}
        spellcheck={props.spellcheck}
        ref={inputRef}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
      />
      {error ? (
        <p id={`${id}-error`} class="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A labelled select of `options` ([value, text]). */
export function Select(props: {
  id: string;
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onValue(value: string): void;
  hint?: string;
}) {
  const { id, label, value, options, onValue, hint } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      ) : null}
      <select
        id={id}
        value={value}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(event) => onValue(event.currentTarget.value)}
      >
        {options.map(([optionValue, text]) => (
          <option key={optionValue} value={optionValue}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A problem with what was just done: announced, and focused so a keyboard user is where it is. */
export function Alert(props: { children: ComponentChildren; focus?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (props.focus) ref.current?.focus();
  }, [props.children]);
  return (
    <div class="alert" role="alert" tabIndex={-1} ref={ref}>
      {props.children}
    </div>
  );
}

/** Good news about what was just done, announced politely. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <div class="notice" role="status">
      {props.children}
    </div>
  );
}

/**
 * A secret (a token, a signing secret, a set-up link) shown this once: in a read-only field to select, a button that
 * copies it, and the warning that it is not shown again.
 */
export function OnceSecret(props: {
  id: string;
  label: string;
  value: string;
  children?: ComponentChildren;
}) {
  const { id, label, value } = props;
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>();
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    setCopied(undefined);
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [value]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      inputRef.current?.select();
      setCopied('failed');
    }
  };
  return (
    <div class="once">
      <label for={id}>{label}</label>
      <p id={`${id}-warning`} class="warning">
        Copy it now: rentpay shows it only this once and cannot show it again.
      </p>
      <div class="once-row">
        <input
          id={id}
          ref={inputRef}
          class="mono"
          readOnly
          value={value}
          spellcheck={false}
          autocomplete="off"
          aria-describedby={`${id}-warning`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy<span class="visually-hidden"> {label.toLowerCase()}</span>
        </button>
      </div>
      <p class="hint" role="status">
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'failed'
            ? 'Could not copy: it is selected, copy it yourself.'
            : ''}
      </p>
      {props.children}
    </div>
  );
}

/** Focuses an element when it first appears (a heading after moving to another page or step). */
export function useFocusOnMount<T extends HTMLElement>(when = true): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (when) ref.current?.focus();
  }, []);
  return ref;
}

/** A scrollable table on a narrow screen: a named region that the keyboard can scroll. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-wrap" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}

/** The message of a failure, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
