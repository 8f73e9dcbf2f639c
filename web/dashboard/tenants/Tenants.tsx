import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount } from '../ui.tsx';

/** Tenants: being built. */
export function Tenants(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  return (
    <h1 ref={heading} tabIndex={-1}>
      Tenants
    </h1>
  );
}
