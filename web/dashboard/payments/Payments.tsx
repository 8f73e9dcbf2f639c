import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount } from '../ui.tsx';

/** Payments: being built. */
export function Payments(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  return (
    <h1 ref={heading} tabIndex={-1}>
      Payments
    </h1>
  );
}
