"""SafePub's β and k against ARX 3.9.2's ParameterCalculation, run live (aacd487f: the `dp`
and `reliability` sources compiled alone, `new ParameterCalculation(eps, delta)`)."""

import pytest

from anonymizer.dp.safepub_parameters import derive

# (ε, δ) -> (ARX's getBeta(), ARX's getK())
ARX = {
    (0.1, 1e-5): (0.09516258196404025, 50), (0.1, 1e-6): (0.09516258196404025, 61),
    (0.5, 1e-5): (0.3934693402873664, 52), (0.5, 1e-6): (0.3934693402873664, 64),
    (1.0, 1e-5): (0.6321205588285574, 62), (1.0, 1e-6): (0.6321205588285574, 75),
    (2.0, 1e-5): (0.8646647167633871, 114), (2.0, 1e-6): (0.8646647167633871, 132),
    (3.0, 1e-5): (0.9502129316321359, 227), (3.0, 1e-6): (0.9502129316321359, 272),
}


@pytest.mark.parametrize(("epsilon", "delta"), sorted(ARX))
def test_beta_and_k_are_arxs(epsilon, delta):
    """β to the last bits (ARX takes its interval's lower end) and ARX's k."""
    got = derive(epsilon, delta)
    beta, k = ARX[(epsilon, delta)]
    assert got.beta == pytest.approx(beta, rel=1e-14)
    assert got.k == k


@pytest.mark.parametrize("bad", [(0.0, 1e-5), (1.0, 0.0), (1.0, 1.0), (-1.0, 1e-5)])
def test_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="epsilon > 0"):
        derive(*bad)
