// SPDX-License-Identifier: GPL-2.0
/*
 * pagebench.ko - time the page allocator in cycles. At load, for each order
 * 0..max_order, allocate batch blocks with alloc_pages(GFP_KERNEL), then
 * free them with __free_pages, iters times; get_cycles() around each batch
 * gives cycles per alloc and per free. The results are in
 * /proc/mmlab_pagebench ("order=<k> alloc_cycles=<f> free_cycles=<f>
 * failed=<n> ops=<n>" lines) until the module is removed.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timex.h>

static unsigned int max_order = 4;
module_param(max_order, uint, 0444);
MODULE_PARM_DESC(max_order, "highest order timed (0..MAX_ORDER-1)");
static unsigned int iters = 100;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "batches per order");
static unsigned int batch = 64;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "blocks allocated before they are freed");

#define PB_ORDERS 11

struct pb_result {
	unsigned long long alloc_cycles, free_cycles, ops, failed;
};

static struct pb_result results[PB_ORDERS];
static struct proc_dir_entry *entry;

static void bench_order(unsigned int order, struct page **pages)
{
	struct pb_result *r = &results[order];
	unsigned int i, k, got;
	cycles_t t0, t1, t2;

	for (i = 0; i < iters; i++) {
		got = 0;
		t0 = get_cycles();
		for (k = 0; k < batch; k++) {
			pages[k] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
			got += pages[k] != NULL;
		}
		t1 = get_cycles();
		for (k = 0; k < batch; k++)
			if (pages[k])
				__free_pages(pages[k], order);
		t2 = get_cycles();
		r->alloc_cycles += t1 - t0;
		r->free_cycles += t2 - t1;
		r->ops += got;
		r->failed += batch - got;
		cond_resched();
	}
}

static int pb_show(struct seq_file *m, void *v)
{
	unsigned int o;

	for (o = 0; o <= max_order; o++) {
		struct pb_result *r = &results[o];
		unsigned long long n = r->ops + r->failed;

		seq_printf(
			m,
			"order=%u alloc_cycles=%llu.%02llu free_cycles=%llu.%02llu failed=%llu ops=%llu\n",
			o, n ? r->alloc_cycles / n : 0, n ? (r->alloc_cycles * 100 / n) % 100 : 0,
			r->ops ? r->free_cycles / r->ops : 0,
			r->ops ? (r->free_cycles * 100 / r->ops) % 100 : 0, r->failed, r->ops);
	}
	return 0;
}

static int __init pb_init(void)
{
	struct page **pages;
	unsigned int o;

	if (max_order >= PB_ORDERS || !batch || batch > 4096 || !iters)
		return -EINVAL;
	pages = kcalloc(batch, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (o = 0; o <= max_order; o++)
		bench_order(o, pages);
	kfree(pages);
	entry = proc_create_single("mmlab_pagebench", 0444, NULL, pb_show);
	return entry ? 0 : -ENOMEM;
}

static void __exit pb_exit(void)
{
	proc_remove(entry);
}

module_init(pb_init);
module_exit(pb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mmlab page allocator microbenchmark");
