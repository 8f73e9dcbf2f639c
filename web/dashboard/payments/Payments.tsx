import type { SectionProps } from '../Shell.tsx';
import { PaymentPage } from './PaymentPage.tsx';
import { PaymentSearch } from './PaymentSearch.tsx';
import './payments.css';

/** Payments: the search (`#payments?filters`) and a payment's own page (`#payments/<payment_id>`). */
export function Payments(props: SectionProps) {
  const paymentId = props.route.path[0];
  if (paymentId) return <PaymentPage key={paymentId} paymentId={paymentId} {...props} />;
  return <PaymentSearch {...props} />;
}
