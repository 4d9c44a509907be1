// What a model wrote, given the task and the declarations main.ts prints
// ("Refund the late orders of ana@example.com: in full for gold customers,
// half otherwise; tell the customer what was refunded").
function refundLateOrders({ email }) {
  const customer = customers_find({ email })
  const { orders } = orders_list({ customerId: customer.id, status: 'late' })
  const refunded = []
  const refused = []
  for (const order of orders) {
    const amount = customer.tier === 'gold' ? order.total : order.total / 2
    try {
      const r = refund({ orderId: order.id, amount, reason: 'late delivery' })
      refunded.push(r.refundId + ': ' + r.amount)
    } catch (e) {
      refused.push(order.id + ': ' + e.message)
    }
  }
  notify({ customerId: customer.id, message: 'Refunded ' + refunded.length + ' late order(s).' })
  return { customer: customer.name, refunded, refused }
}
