import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { Alert, messageOf } from '../ui.tsx';

/**
 * A change that asks first: its button, then what will happen (`children`) with the button again to go ahead and
 * one to keep things as they are. A refusal is shown where the person is.
 */
export function Confirming(props: {
  start: ComponentChildren;
  doing: string;
  keep: string;
  danger?: boolean;
  onConfirm(): Promise<void>;
  children: ComponentChildren;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const startRef = useRef<HTMLButtonElement>(null);
  const keepRef = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  const textId = useId();

  useEffect(() => {
    if (asking) keepRef.current?.focus();
    else if (moved.current) startRef.current?.focus();
  }, [asking]);

  const close = () => {
    moved.current = true;
    setAsking(false);
  };

  const confirm = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await props.onConfirm();
      close();
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  const buttonClass = props.danger ? 'danger' : 'primary';
  if (!asking) {
    return (
      <button type="button" class={buttonClass} ref={startRef} onClick={() => setAsking(true)}>
        {props.start}
      </button>
    );
  }
  return (
    <div class="confirm">
      <div id={textId}>{props.children}</div>
      {problem ? <Alert focus>{problem}</Alert> : null}
      <div class="buttons">
        <button type="button" class={buttonClass} onClick={confirm} disabled={busy}>
          {busy ? props.doing : props.start}
        </button>
        <button type="button" ref={keepRef} onClick={close} aria-describedby={textId} disabled={busy}>
          {props.keep}
        </button>
      </div>
    </div>
  );
}
