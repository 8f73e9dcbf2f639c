import type Stripe from 'stripe';
import type { Db } from '../../platform/db/db.ts';
import { firstRow, qb } from '../../platform/db/query-builder.ts';

/**
 * One Stripe Customer per user: saved cards are PaymentMethods attached to it and every PaymentIntent names it.
 * The Customer is created with the user id as its idempotency key, so two nodes creating it at once get the
 * same one, and the mapping is kept in the database (never only in a node's memory).
 */
export async function stripeCustomerFor(db: Db, stripe: Stripe, userId: string): Promise<string> {
  const known = await firstRow(
    db,
    qb
      .selectFrom('processor_customers')
      .select('customer_id')
      .where('processor', '=', 'stripe')
      .where('user_id', '=', userId),
  );
  if (known) return known.customer_id;
  const user = await firstRow(
    db,
    qb.selectFrom('users').select(['email', 'first_name', 'last_name']).where('id', '=', userId),
  );
  const customer = await stripe.customers.create(
    {
      email: user?.email,
      name: user ? `${user.first_name} ${user.last_name}` : undefined,
      metadata: { user_id: userId },
    },
    { idempotencyKey: `customer:${userId}` },
  );
  await db.query(
    `INSERT INTO processor_customers (processor, user_id, customer_id, created_at)
     VALUES ('stripe', $1, $2, now()) ON CONFLICT (processor, user_id) DO NOTHING`,
    [userId, customer.id],
  );
  return customer.id;
}
