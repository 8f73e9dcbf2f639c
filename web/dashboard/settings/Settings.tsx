import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount } from '../ui.tsx';

/** Settings: being built. */
export function Settings(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  return (
    <h1 ref={heading} tabIndex={-1}>
      Settings
    </h1>
  );
}
