/** What setting up a schedule would charge, and the sentence the tenant agrees to: the server's answer, the page's input. */
export interface SchedulePreview {
  pure_amount: string;
  fee: string;
  amount: string;
  installment_plan: boolean;
  payments: number;
  upcoming: { due_date: string; pure_amount: string; fee: string; amount: string }[];
  last_due_date: string;
  /** The last due date already paid before the first charge; null when it starts at the first from today. */
  paid_through: string | null;
  authorization: { version: string; text: string };
}
