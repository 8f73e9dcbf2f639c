import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount } from '../ui.tsx';

/** Payout runs: being built. */
export function PayoutRuns(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  return (
    <h1 ref={heading} tabIndex={-1}>
      Payout runs
    </h1>
  );
}
