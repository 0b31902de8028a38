// The back-office GraphQL schema (POST /backoffice/query; docs/backoffice-schema.md documents every field).
// Field names follow the back-office record of the spec, `postions_paid` spelling included.

export const BACKOFFICE_SCHEMA = /* GraphQL */ `
  "Exact decimal text: money always with two decimals (\\"12.50\\"), odds, percentages and dividends as stored."
  scalar Decimal
  "An instant, ISO 8601 in UTC with milliseconds: \\"2024-05-01T03:45:00.000Z\\"."
  scalar DateTime
  "Any JSON value."
  scalar JSON

  enum BetType { WIN PLACE EXACTA QUINELLA TRIFECTA FIRST_FOUR MULTI QUADDIE DAILY_DOUBLE }
  enum BetStatus { PENDING ACCEPTED PARTIALLY_ACCEPTED REJECTED SETTLED REFUNDED CANCELLED CASHED_OUT }
  enum BetResult { WON LOST }

  input TenantFilter {
    "Tenants to read: each must be the client's own or granted to it."
    ids: [ID!]!
    "Only these bets (at most 1,000); ids of other tenants are simply not found."
    bet_ids: [ID!]
  }
  input PaginationInput {
    "The last_id of the page before; omit for the first page."
    last_id: ID
    "Bets per page, 1 to 1,000; default 100."
    limit: Int
  }
  input GetBetsInput { tenant: TenantFilter! pagination: PaginationInput }
  input BetRef { id: ID! tenant_id: ID! }

  type BetMetadata {
    created_at: DateTime!
    tenant_id: ID!
    user_id: ID!
    account_id: ID!
    account_type: String!
    ticket_id: ID!
    fixed_odds: Decimal
    original_odds: Decimal
    amount: Decimal
    original_amount: Decimal!
    percentage: Decimal
    original_percentage: Decimal
    is_partial: Boolean!
    status: BetStatus!
    source: String!
    medium: String
    bet_limit_id: String
    reason: String
    reason_id: String
    message: String
    action_id: ID!
    liability_percentage: Decimal!
    liability: Decimal
    is_fixed: Boolean!
    is_flexi: Boolean!
    is_boxed: Boolean!
    bet_type: BetType!
    teller_id: String
    is_cashout: Boolean!
    is_livebet: Boolean!
    ip_address: String
    result: BetResult
    payout: Decimal!
    refunded: Decimal!
    cash_out: Decimal
    adjusted: Decimal!
    settled_at: DateTime
  }

  type BetLeg {
    leg_number: Int!
    bet_type: BetType!
    dividend: Decimal
    event_id: ID!
    event_name: String!
    event_time: DateTime!
    leg_type: String!
    meeting_id: ID!
    meeting_name: String!
    postions_paid: Int
    "The same as postions_paid, spelled correctly."
    positions_paid: Int
    product_keyword: String!
    sport_id: ID
    sport_name: String
    race_number: Int!
    selections: [[Int!]!]!
    price: Decimal
  }

  type WalletCallAttempt {
    attempt: Int!
    at: DateTime!
    duration_ms: Int!
    http_status: Int
    outcome: String!
    error: String
  }

  type WalletCall {
    sequence: Int!
    operation: String!
    transaction_type: String
    amount: Decimal!
    transactionId: ID!
    status: String!
    bonus: Boolean!
    created_at: DateTime!
    finished_at: DateTime
    next_attempt_at: DateTime
    last_http_status: Int
    last_error: String
    note: String
    attempts: [WalletCallAttempt!]!
  }

  type BetHistoryEntry {
    seq: Int!
    at: DateTime!
    from: BetStatus
    to: BetStatus!
    cause: String!
    detail: JSON
  }

  type Bet {
    id: ID!
    created_at: DateTime!
    legs: [BetLeg!]!
    metadata: BetMetadata!
    wallet_calls: [WalletCall!]!
    history: [BetHistoryEntry!]!
  }

  type Pagination { last_id: ID count: Int! has_more: Boolean! }
  type BetsPage { bets: [Bet!]! pagination: Pagination! }

  type CancelResult {
    id: ID!
    status: BetStatus!
    previous_status: BetStatus!
    "False when the bet was already cancelled: nothing was sent again."
    changed: Boolean!
    wallet_calls: [WalletCall!]!
    bet: Bet!
  }

  type Query {
    getBets(input: GetBetsInput!): BetsPage!
  }
  type Mutation {
    cancelBet(bet: BetRef!, reason: String): CancelResult!
  }

  "A change of a bet: placed, taken or refused, settled, cancelled, cashed out, adjusted."
  type BetUpdate {
    bet_id: ID!
    tenant_id: ID!
    user_id: ID!
    "The state the change moved the bet to (an adjustment leaves it as it was)."
    status: BetStatus!
    "The bet as getBets reads it when the update is sent (it may have changed again since)."
    bet: Bet!
  }

  type Subscription {
    "Changes of the bets of these tenants (default: every tenant the client sees), made by any process, from now on."
    betUpdated(tenant_ids: [ID!]): BetUpdate!
  }
`;
