"""The C++ samplers the distributions draw with: oar.standard_gamma (Gamma and what is built on it:
Beta, Dirichlet, Chi2, StudentT), oar.poisson and oar.binomial. They are looked up on the oar
package when called, because oar imports this package while it initialises."""


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws, one per element of alpha."""
    import oar
    return oar.standard_gamma(alpha)


def poisson(rate):
    """Poisson(rate) draws, one per element of rate."""
    import oar
    return oar.poisson(rate)


def binomial(count, prob):
    """Binomial(count, prob) draws (int64), one per element of count and prob."""
    import oar
    return oar.binomial(count, prob)
