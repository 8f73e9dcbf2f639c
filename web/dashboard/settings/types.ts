/** The platform's settings as the Dashboard API answers them (src/dashboard/settings-view.ts). */

export interface MethodFee {
  percent: string;
  fixed: string;
}

export interface PlatformSettings {
  fees: Record<string, MethodFee>;
  reminder_days_before: number | null;
  allowed_origins: string[];
  environment: 'sandbox' | 'production';
  business_lets: boolean;
}
