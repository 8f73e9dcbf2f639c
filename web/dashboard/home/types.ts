/** The home page's figures as GET /home/ answers them (src/dashboard/home.ts, HomeView). */

export interface AmountFigure {
  amount: string;
  link: string;
}

export interface CountFigure {
  count: number;
  link: string;
}

export type ArrearsAge = '0-7' | '8-30' | '31-60' | 'over_60';

export interface HomeFigures {
  as_of: string;
  today: string;
  month: string;
  collected_today: AmountFigure;
  collected_this_month: AmountFigure;
  due_this_month: AmountFigure;
  series: { date: string; collected: string; due: string; link: string }[];
  arrears: {
    as_of: string;
    total: { tenancies: number; amount: string };
    buckets: {
      label: ArrearsAge;
      min_days: number;
      max_days: number | null;
      tenancies: number;
      amount: string;
    }[];
    link: string;
  };
  failed_payments: CountFigure;
  requires_action: CountFigure;
  payouts: { awaiting_confirmation: CountFigure; awaiting_approval: CountFigure; held: CountFigure };
  webhooks: {
    failed: CountFigure;
    pending: {
      count: number;
      retrying: number;
      oldest_since: string | null;
      oldest_age_seconds: number | null;
      link: string;
    };
  };
}
