import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount } from '../ui.tsx';

/** Home: being built. */
export function Home(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  return (
    <h1 ref={heading} tabIndex={-1}>
      Home
    </h1>
  );
}
