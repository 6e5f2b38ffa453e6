import {
  agg,
  and,
  arith,
  asc,
  attr,
  classOf,
  cmp,
  count,
  countDistinct,
  desc,
  entity,
  id,
  inner,
  left,
  lit,
  out,
  round,
  scalar,
  select,
  setArray,
} from '../query/query-builder.ts';
import type { Expr, SelectQuery } from '../query/conceptual-query.ts';
import type { SuiteQuestion } from './suite.ts';

// The fifteen retail questions of the paper's Appendix A. They name their output columns
// and their order; where the order they give can tie, the id breaks the tie last, so every
// variant returns the same rows in the same order.

const PRODUCT_TYPES = ['Apparel', 'Accessories', 'Electronics', 'Media', 'Software'] as const;
/** A customer's contact columns as outputs, and the same as grouping keys (with the id). */
const CUSTOMER_COLUMNS = ['first_name', 'last_name', 'email', 'loyalty_points'] as const;
const customerOutputs = (alias: string) => CUSTOMER_COLUMNS.map((c) => out(c, attr(alias, c)));
const customerKeys = (alias: string): Expr[] => [id(alias), ...CUSTOMER_COLUMNS.map((c) => attr(alias, c))];
const fullName = (alias: string): Expr =>
  arith('||', arith('||', attr(alias, 'first_name'), lit(' ')), attr(alias, 'last_name'));

export const PAPER_RETAIL: readonly SuiteQuestion[] = [
  {
    id: 'q01',
    question:
      'For each department, compute the total number of employees in that department and the average number of orders processed per employee, rounded to two decimal places. Include all departments that have at least one employee. Order by average orders processed descending; break ties by department name ascending.',
    query: select({
      from: entity('Employee', 'e'),
      select: [
        out('department', attr('e', 'department')),
        out('employee_count', count()),
        out(
          'avg_orders_processed',
          round(
            agg(
              'avg',
              scalar(
                select({
                  from: entity('CustOrder', 'o'),
                  joins: [inner('processes', 'o', 'reverse', 'pe', 'Employee')],
                  where: cmp(id('pe'), '=', id('e')),
                  select: [out('n', count())],
                }),
              ),
            ),
            2,
          ),
        ),
      ],
      groupBy: [attr('e', 'department')],
      orderBy: [desc('avg_orders_processed'), asc('department')],
    }),
  },
  {
    id: 'q02',
    question:
      'For each department, report the number of employees in that department, the total number of distinct products recommended by those employees, and the total number of distinct orders processed by those employees. Return one row per department. Order by department name ascending.',
    query: select({
      from: entity('Employee', 'e'),
      joins: [left('recommends', 'e', 'forward', 'p', 'Product'), left('processes', 'e', 'forward', 'o', 'CustOrder')],
      select: [
        out('department', attr('e', 'department')),
        out('employee_count', countDistinct(id('e'))),
        out('recommended_product_count', countDistinct(id('p'))),
        out('processed_order_count', countDistinct(id('o'))),
      ],
      groupBy: [attr('e', 'department')],
      orderBy: [asc('department')],
    }),
  },
  {
    id: 'q03',
    question:
      'For each of the Electronics products, report the number of distinct Software products installable on it and the number of distinct Media products that can stream to it. Order by the sum of the two counts descending; break ties by product name ascending.',
    query: select({
      from: entity('Electronics', 'e'),
      joins: [
        left('installable_on', 'e', 'reverse', 's', 'Software'),
        left('streams_to', 'e', 'reverse', 'm', 'Media'),
      ],
      select: [
        out('product_name', attr('e', 'name')),
        out('software_count', countDistinct(id('s'))),
        out('media_count', countDistinct(id('m'))),
      ],
      groupBy: [id('e'), attr('e', 'name')],
      orderBy: [desc(arith('+', countDistinct(id('s')), countDistinct(id('m')))), asc('product_name'), asc(id('e'))],
    }),
  },
  {
    id: 'q04',
    question:
      'For each of the five concrete product types: Apparel, Accessories, Electronics, Media, and Software, report the total number of products of that type and the average price rounded to the nearest integer. Return one row per product type. Order by average price descending.',
    query: select({
      from: entity('Product', 'p'),
      select: [
        out('product_type', classOf('p', PRODUCT_TYPES)),
        out('product_count', count()),
        out('avg_price', round(agg('avg', attr('p', 'price')), 0)),
      ],
      groupBy: [classOf('p', PRODUCT_TYPES)],
      orderBy: [desc('avg_price'), asc('product_type')],
    }),
  },
  {
    id: 'q05',
    question:
      'For every Accessories-Electronics pair, return the accessories product name, accessories category, accessories price, electronics product name, electronics model number, and electronics price. Order by accessories product name ascending, then by electronics product name ascending.',
    query: select({
      from: entity('Accessories', 'a'),
      joins: [inner('compatible_with', 'a', 'forward', 'e', 'Electronics')],
      select: [
        out('accessories_name', attr('a', 'name')),
        out('accessories_category', attr('a', 'category')),
        out('accessories_price', attr('a', 'price')),
        out('electronics_name', attr('e', 'name')),
        out('electronics_model_no', attr('e', 'model_no')),
        out('electronics_price', attr('e', 'price')),
      ],
      orderBy: [asc('accessories_name'), asc('electronics_name'), asc(id('a')), asc(id('e'))],
    }),
  },
  {
    id: 'q06',
    question:
      "List every customer who has downloaded at least one Software product. Return the customer's first name, last name, email, loyalty points, and the count of distinct Software products they have downloaded. Order by download count descending; break ties by last name ascending.",
    query: select({
      from: entity('Customer', 'c'),
      joins: [inner('downloads', 'c', 'forward', 's', 'Software')],
      select: [...customerOutputs('c'), out('download_count', countDistinct(id('s')))],
      groupBy: customerKeys('c'),
      orderBy: [desc('download_count'), asc('last_name'), asc(id('c'))],
    }),
  },
  {
    id: 'q07',
    question:
      "List every customer who has placed at least 3 orders and written at least 2 reviews. Return the customer's first name, last name, email, order count, and review count. Order by order count descending, then review count descending, then last name ascending.",
    query: (() => {
      const orders = (alias: string, link: string) =>
        scalar(
          select({
            from: entity('CustOrder', alias),
            joins: [inner('places', alias, 'forward', link, 'Customer')],
            where: cmp(id(link), '=', id('c')),
            select: [out('n', count())],
          }),
        );
      const reviews = (alias: string, link: string) =>
        scalar(
          select({
            from: entity('Review', alias),
            joins: [inner('writes', alias, 'forward', link, 'Customer')],
            where: cmp(id(link), '=', id('c')),
            select: [out('n', count())],
          }),
        );
      return select({
        from: entity('Customer', 'c'),
        where: and(cmp(orders('o1', 'oc1'), '>=', lit(3)), cmp(reviews('r1', 'rc1'), '>=', lit(2))),
        select: [
          out('first_name', attr('c', 'first_name')),
          out('last_name', attr('c', 'last_name')),
          out('email', attr('c', 'email')),
          out('order_count', orders('o2', 'oc2')),
          out('review_count', reviews('r2', 'rc2')),
        ],
        orderBy: [desc('order_count'), desc('review_count'), asc('last_name'), asc(id('c'))],
      });
    })(),
  },
  {
    id: 'q08',
    question:
      "List every review that has a rating of exactly 5. Return the reviewer's first name, last name, the name of the reviewed product, and the review body text. Order by reviewer last name ascending, then reviewer first name ascending.",
    query: select({
      from: entity('Review', 'r'),
      joins: [inner('writes', 'r', 'forward', 'c', 'Customer'), inner('about', 'r', 'forward', 'p', 'Product')],
      where: cmp(attr('r', 'rating'), '=', lit(5)),
      select: [
        out('first_name', attr('c', 'first_name')),
        out('last_name', attr('c', 'last_name')),
        out('product_name', attr('p', 'name')),
        out('body', attr('r', 'body')),
      ],
      orderBy: [asc('last_name'), asc('first_name'), asc(id('r'))],
    }),
  },
  {
    id: 'q09',
    question:
      'List the 3 Apparel items that are paired with the greatest number of distinct Accessories items. Return the apparel product name, category, available sizes array, and the count of accessories it is paired with. Order by accessories count descending; break ties by product name ascending.',
    query: select({
      from: entity('Apparel', 'a'),
      joins: [left('paired_with', 'a', 'forward', 'x', 'Accessories')],
      select: [
        out('product_name', attr('a', 'name')),
        out('category', attr('a', 'category')),
        out('avail_sizes', setArray('a', 'avail_sizes')),
        out('accessories_count', countDistinct(id('x'))),
      ],
      groupBy: [id('a'), attr('a', 'name'), attr('a', 'category')],
      orderBy: [desc('accessories_count'), asc('product_name'), asc(id('a'))],
      limit: 3,
    }),
  },
  {
    id: 'q10',
    question:
      "List the 5 customers with the highest loyalty point totals among those who have written at least one review. Return the customer's first name, last name, email, loyalty points, and their total review count. Order by loyalty points descending; break ties by last name ascending.",
    query: select({
      from: entity('Customer', 'c'),
      joins: [inner('writes', 'c', 'reverse', 'r', 'Review')],
      select: [...customerOutputs('c'), out('review_count', count(id('r')))],
      groupBy: customerKeys('c'),
      orderBy: [desc('loyalty_points'), asc('last_name'), asc(id('c'))],
      limit: 5,
    }),
  },
  {
    id: 'q11',
    question:
      "List the 5 customers with the highest total spend. Define total spend as the sum of the prices of all products that appear in orders the customer has placed: for each order the customer has placed, add the price of every product in that order (a product appearing in two different orders of the same customer is counted twice, once per order). Return the customer's first name, last name, email, loyalty points, and total spend. Order by total spend descending; break ties by last name ascending.",
    query: select({
      from: entity('Customer', 'c'),
      joins: [inner('places', 'c', 'reverse', 'o', 'CustOrder'), inner('contains', 'o', 'forward', 'p', 'Product')],
      select: [...customerOutputs('c'), out('total_spend', agg('sum', attr('p', 'price')))],
      groupBy: customerKeys('c'),
      orderBy: [desc('total_spend'), asc('last_name'), asc(id('c'))],
      limit: 5,
    }),
  },
  {
    id: 'q12',
    question:
      "List the 5 employees who have processed the highest number of distinct orders. Return the employee's full name, department, role, and the count of orders they have processed. Order by order count descending; break ties by employee name ascending.",
    query: select({
      from: entity('Employee', 'e'),
      joins: [inner('processes', 'e', 'forward', 'o', 'CustOrder')],
      select: [
        out('full_name', fullName('e')),
        out('department', attr('e', 'department')),
        out('role', attr('e', 'role')),
        out('order_count', countDistinct(id('o'))),
      ],
      groupBy: [id('e'), attr('e', 'first_name'), attr('e', 'last_name'), attr('e', 'department'), attr('e', 'role')],
      orderBy: [desc('order_count'), asc('full_name'), asc(id('e'))],
      limit: 5,
    }),
  },
  {
    id: 'q13',
    question:
      "List the 5 employees whose recommended products span the greatest number of distinct product types, where product type is one of: Apparel, Accessories, Electronics, Media, Software. Return the employee's full name, department, role, the count of distinct product types represented in their recommendations, and their total number of recommended products. Order by distinct product type count descending; break ties by total recommended products descending, then by employee name ascending.",
    query: select({
      from: entity('Employee', 'e'),
      joins: [inner('recommends', 'e', 'forward', 'p', 'Product')],
      select: [
        out('full_name', fullName('e')),
        out('department', attr('e', 'department')),
        out('role', attr('e', 'role')),
        out('product_type_count', countDistinct(classOf('p', PRODUCT_TYPES))),
        out('recommended_count', count(id('p'))),
      ],
      groupBy: [id('e'), attr('e', 'first_name'), attr('e', 'last_name'), attr('e', 'department'), attr('e', 'role')],
      orderBy: [desc('product_type_count'), desc('recommended_count'), asc('full_name'), asc(id('e'))],
      limit: 5,
    }),
  },
  {
    id: 'q14',
    question:
      'List the 5 most expensive Electronics products by price. Return the product name, model number, price, and the list of supported standards. Order by price descending; break ties by product name ascending.',
    query: select({
      from: entity('Electronics', 'e'),
      select: [
        out('product_name', attr('e', 'name')),
        out('model_no', attr('e', 'model_no')),
        out('price', attr('e', 'price')),
        out('standards', setArray('e', 'standards')),
      ],
      orderBy: [desc('price'), asc('product_name'), asc(id('e'))],
      limit: 5,
    }),
  },
  {
    id: 'q15',
    question:
      'List the 5 Software products that are installable on the greatest number of distinct Electronics items. Return the software name, version, price, and compatible electronics count. Order by compatible electronics count descending; break ties by software name ascending.',
    query: select({
      from: entity('Software', 's'),
      joins: [inner('installable_on', 's', 'forward', 'e', 'Electronics')],
      select: [
        out('software_name', attr('s', 'name')),
        out('version', attr('s', 'version')),
        out('price', attr('s', 'price')),
        out('compatible_electronics_count', countDistinct(id('e'))),
      ],
      groupBy: [id('s'), attr('s', 'name'), attr('s', 'version'), attr('s', 'price')],
      orderBy: [desc('compatible_electronics_count'), asc('software_name'), asc(id('s'))],
      limit: 5,
    }),
  },
];
