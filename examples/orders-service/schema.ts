/**
 * The orders database: products with a stock, orders, and the idempotency keys clients send so a
 * retried order is placed once. The migrations run once, into the template every seed starts from.
 */
export const PRODUCTS = [1, 2] as const;
export const INITIAL_STOCK = 1_000;

export const MIGRATIONS: readonly string[] = [
  `create table products (id int primary key, stock int not null);
   insert into products values ${PRODUCTS.map((id) => `(${id}, ${INITIAL_STOCK})`).join(", ")};`,
  `create table orders (
     id serial primary key,
     product_id int not null references products(id),
     qty int not null check (qty > 0),
     idempotency_key text not null
   );
   create table idempotency (key text primary key, order_id int);`,
];
