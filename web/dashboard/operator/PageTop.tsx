import type { ComponentChildren, RefObject } from 'preact';

/** A sub-page's top: the way back to its list, then its heading (focused when the person moved here). */
export function PageTop(props: {
  back: string;
  backText: string;
  heading: RefObject<HTMLHeadingElement | null>;
  children: ComponentChildren;
}) {
  return (
    <>
      <p class="back">
        <a href={props.back}>{props.backText}</a>
      </p>
      <h1 ref={props.heading} tabIndex={-1}>
        {props.children}
      </h1>
    </>
  );
}
